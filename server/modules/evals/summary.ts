import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { experiments, type StoredScore } from '../../../db/schema';
import type { Scorer } from './scorer-schemas';
import { compareMeans, round4, summarize } from './stats';

// An experiment's summary and its comparison with a baseline (docs/evals.md, "Statistics"),
// computed once when it ends (and kept on its row): per scorer, an item's score is the mean of
// its trials' scores; the summary is the mean, the sample standard deviation and the Student-t
// 95 % interval of the items' scores, and the pass rate of the scored runs. Items a scorer could
// not score (`null`) are left out of its numbers. Against a baseline: per scorer both have, the
// difference of means, with the paired t interval over the items both scored (Welch's when
// fewer than two are shared).

type ExperimentRow = typeof experiments.$inferSelect;

interface ScoreRow {
  item_id: string;
  scores: Record<string, StoredScore> | null;
}

const scoresOf = (db: Db, id: string) => queryRows<ScoreRow>(db, sql`select item_id, scores from experiment_runs where experiment_id = ${id} and state = 'scored'`);

/** Per scorer: each item's mean score over its scored trials (null: none scored), and every scored run's pass. */
function perItem(rows: ScoreRow[], names: string[]): Map<string, { items: Map<string, number | null>; passes: (boolean | null)[] }> {
  const out = new Map(names.map((n) => [n, { items: new Map<string, number | null>(), passes: [] as (boolean | null)[] }]));
  const sums = new Map<string, { sum: number; n: number }>();
  for (const row of rows) {
    for (const name of names) {
      const s = row.scores?.[name];
      const entry = out.get(name)!;
      if (!entry.items.has(row.item_id)) entry.items.set(row.item_id, null);
      if (!s || s.score === null) continue;
      entry.passes.push(s.pass);
      const key = `${name}\u0000${row.item_id}`;
      const acc = sums.get(key) ?? { sum: 0, n: 0 };
      acc.sum += s.score;
      acc.n += 1;
      sums.set(key, acc);
      entry.items.set(row.item_id, acc.sum / acc.n);
    }
  }
  return out;
}

const r4 = (pair: [number, number] | null): [number, number] | null => (pair ? [round4(pair[0]), round4(pair[1])] : null);

/** Writes the summary (and the comparison, with a baseline) on the experiment's row; returns the row. */
export async function summarizeExperiment(db: Db, row: ExperimentRow): Promise<ExperimentRow> {
  const names = (row.scorers as unknown as Scorer[]).map((s) => s.name);
  const mine = perItem(await scoresOf(db, row.id), names);
  const summary: Record<string, unknown> = {};
  for (const [name, { items, passes }] of mine) {
    const values = [...items.values()];
    const s = summarize(values, passes);
    summary[name] = { mean: round4(s.mean), stddev: round4(s.stddev), ci95: r4(s.ci95), passRate: round4(s.passRate), scored: s.n };
  }
  let comparison: Record<string, unknown> | null = null;
  if (row.baselineExperimentId) {
    const [base] = await db.select({ scorers: experiments.scorers }).from(experiments).where(eq(experiments.id, row.baselineExperimentId));
    const shared = base ? (base.scorers as unknown as Scorer[]).map((s) => s.name).filter((n) => names.includes(n)) : [];
    if (shared.length > 0) {
      const theirs = perItem(await scoresOf(db, row.baselineExperimentId), shared);
      comparison = {};
      for (const name of shared) {
        const c = compareMeans(mine.get(name)!.items, theirs.get(name)!.items);
        comparison[name] = { baselineMean: round4(c.baselineMean), diff: round4(c.diff), ci95: r4(c.ci95), paired: c.paired };
      }
    }
  }
  const [updated] = await db.update(experiments).set({ summary, comparison }).where(eq(experiments.id, row.id)).returning();
  return updated!;
}
