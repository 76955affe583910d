import type { Experiment, ExperimentResult, ExperimentStatus } from './types';

// Experiments for people (server/modules/evals/experiment-schemas.ts): their statuses in words,
// scores, intervals and differences written one way, the results put regressions first, and two
// experiments' results joined item by item for the compare page.

export const EXPERIMENT_STATUS_WORDS: Record<ExperimentStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const ENDED: readonly ExperimentStatus[] = ['succeeded', 'failed', 'cancelled'];

/** Whether it has ended (succeeded, failed or cancelled): no more progress, a summary. */
export const isEnded = (status: ExperimentStatus): boolean => ENDED.includes(status);

/** A score (0–1) with two decimals; "—" when there is none. */
export const formatScore = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : x.toFixed(2));

/** A share (0–1) as a whole percentage ("67%"); "—" when there is none. */
export function formatShare(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  const pct = x * 100;
  if (pct > 0 && pct < 1) return '<1%';
  if (pct < 100 && pct > 99) return '>99%';
  return `${Math.round(pct)}%`;
}

/** A difference of scores with its sign: "+0.33", "−0.10", "0.00". */
export function formatDiff(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  const r = Math.round(x * 100) / 100;
  if (r === 0) return '0.00';
  return `${r > 0 ? '+' : '−'}${Math.abs(r).toFixed(2)}`;
}

/** A 95 % interval as "0.38 – 0.95" (differences signed); "—" without one. */
export function formatInterval(ci: readonly [number, number] | null | undefined, signed = false): string {
  if (!ci) return '—';
  const f = signed ? formatDiff : formatScore;
  return `${f(ci[0])} – ${f(ci[1])}`;
}

/** Half the width of an interval around its mean ("± 0.29"), or null. */
export function plusMinus(ci: readonly [number, number] | null | undefined): string | null {
  if (!ci) return null;
  return `± ${((ci[1] - ci[0]) / 2).toFixed(2)}`;
}

/** Whether a difference's interval says it is real: above 0 (better), below 0 (worse), or it holds 0. */
export function diffVerdict(ci: readonly [number, number] | null | undefined): 'better' | 'worse' | 'unclear' {
  if (!ci) return 'unclear';
  if (ci[0] > 0) return 'better';
  if (ci[1] < 0) return 'worse';
  return 'unclear';
}

/** "12 / 40" and the share done (0–1). */
export function progressOf(p: Experiment['progress']): { text: string; share: number } {
  const fmt = new Intl.NumberFormat('en-US');
  return { text: `${fmt.format(p.done)} / ${fmt.format(p.total)}`, share: p.total > 0 ? Math.min(1, p.done / p.total) : 0 };
}

/** The scorers' names, in the experiment's order. */
export const scorerNames = (scorers: readonly Record<string, unknown>[]): string[] => scorers.map((s) => String(s.name ?? s.type));

/** The first scorer's name and its mean, once the experiment has a summary. */
export function mainScore(e: Pick<Experiment, 'scorers' | 'summary'>): { name: string; mean: number | null } | null {
  const name = scorerNames(e.scorers)[0];
  if (name === undefined || !e.summary) return null;
  return { name, mean: e.summary[name]?.mean ?? null };
}

export type Change = NonNullable<ExperimentResult['change']>;

export const CHANGE_WORDS: Record<Change, string> = { regressed: 'Regressed', unchanged: 'Unchanged', improved: 'Improved' };

const CHANGE_ORDER: Record<Change | 'none', number> = { regressed: 0, unchanged: 1, improved: 2, none: 3 };

/** The results with regressed items first, then unchanged, then improved, then those without a change; the dataset's order kept within each. */
export function regressionsFirst<T extends { change: ExperimentResult['change'] }>(rows: readonly T[]): T[] {
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => CHANGE_ORDER[a.row.change ?? 'none'] - CHANGE_ORDER[b.row.change ?? 'none'] || a.i - b.i)
    .map(({ row }) => row);
}

/** How many items changed which way. */
export function changeCounts(rows: readonly { change: ExperimentResult['change'] }[]): Record<Change, number> {
  const counts: Record<Change, number> = { regressed: 0, unchanged: 0, improved: 0 };
  for (const r of rows) if (r.change) counts[r.change]++;
  return counts;
}

// ---- two experiments side by side ----

/** One item of the compare page: both experiments' scores (either may lack the item), the per-scorer differences, and the change. */
export interface JoinedItem {
  itemId: string;
  input: string;
  expected: unknown;
  a: ExperimentResult | null;
  b: ExperimentResult | null;
  /** By shared scorer: b's mean minus a's (null where either is unscored). */
  diffs: Record<string, number | null>;
  /** The mean over the shared scorers of each side. */
  meanA: number | null;
  meanB: number | null;
  change: ExperimentResult['change'];
}

/** The scorers both experiments have, in a's order. */
export const sharedScorers = (a: readonly string[], b: readonly string[]): string[] => a.filter((n) => b.includes(n));

function meanOver(result: ExperimentResult | null, names: readonly string[]): number | null {
  if (!result) return null;
  const means = names.map((n) => result.scores[n]?.mean ?? null).filter((m): m is number => m !== null);
  return means.length > 0 ? means.reduce((s, m) => s + m, 0) / means.length : null;
}

function changeBetween(before: number | null, after: number | null): ExperimentResult['change'] {
  if (before === null || after === null) return null;
  const delta = after - before;
  if (delta > 1e-9) return 'improved';
  if (delta < -1e-9) return 'regressed';
  return 'unchanged';
}

/** The two experiments' results joined by item (a's order, then b's items a lacks), each with its differences and change (b against a). */
export function joinResults(a: readonly ExperimentResult[], b: readonly ExperimentResult[], shared: readonly string[]): JoinedItem[] {
  const byId = new Map(b.map((r) => [r.itemId, r]));
  const seen = new Set<string>();
  const out: JoinedItem[] = [];
  const push = (ra: ExperimentResult | null, rb: ExperimentResult | null) => {
    const base = (ra ?? rb)!;
    const diffs: Record<string, number | null> = {};
    for (const n of shared) {
      const x = ra?.scores[n]?.mean ?? null;
      const y = rb?.scores[n]?.mean ?? null;
      diffs[n] = x === null || y === null ? null : y - x;
    }
    const meanA = meanOver(ra, shared);
    const meanB = meanOver(rb, shared);
    out.push({ itemId: base.itemId, input: base.input, expected: base.expected, a: ra, b: rb, diffs, meanA, meanB, change: changeBetween(meanA, meanB) });
  };
  for (const ra of a) {
    seen.add(ra.itemId);
    push(ra, byId.get(ra.itemId) ?? null);
  }
  for (const rb of b) if (!seen.has(rb.itemId)) push(null, rb);
  return out;
}

/** The joined items with the regressions first, the worst first; the rest in their order. */
export function worstFirst(items: readonly JoinedItem[]): JoinedItem[] {
  const regressed = items.filter((i) => i.change === 'regressed').sort((x, y) => x.meanB! - x.meanA! - (y.meanB! - y.meanA!));
  return [...regressed, ...items.filter((i) => i.change !== 'regressed')];
}

/** An output as a text: a string as it is, anything else as JSON, none as null. */
export function outputText(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? null);
}
