import type { ExecutionUsageRow, RequestUsageRow } from './types';

// The Usage page's ranges and what it makes of the analytics answers (docs/decisions.md,
// "Usage page"): a range is whole UTC buckets ending with the current one, asked for on one
// page; the top tables come from analytics.byGroup, one row per group over the whole range
// (percentiles do not add up across buckets: the server merges their histograms).

export type RangeId = '24h' | '7d' | '30d' | '90d';
export type Granularity = 'hour' | 'day';

export interface RangePreset {
  id: RangeId;
  /** The button's text. */
  label: string;
  /** The range in words. */
  title: string;
  granularity: Granularity;
  buckets: number;
}

export const RANGES: readonly RangePreset[] = [
  { id: '24h', label: '24 h', title: 'Last 24 hours', granularity: 'hour', buckets: 24 },
  { id: '7d', label: '7 d', title: 'Last 7 days', granularity: 'day', buckets: 7 },
  { id: '30d', label: '30 d', title: 'Last 30 days', granularity: 'day', buckets: 30 },
  { id: '90d', label: '90 d', title: 'Last 90 days', granularity: 'day', buckets: 90 },
];

export const DEFAULT_RANGE: RangeId = '7d';

export function rangeOf(id: string | undefined): RangePreset {
  return RANGES.find((r) => r.id === id) ?? RANGES.find((r) => r.id === DEFAULT_RANGE)!;
}

const STEP: Record<Granularity, number> = { hour: 3_600_000, day: 86_400_000 };

/** The analytics query of a range (its start, end and page size). */
export interface UsageWindow {
  start: string;
  end: string;
  granularity: Granularity;
  limit: number;
}

/**
 * The range at `now`: `buckets` whole UTC hours or days, the last one the current (unfinished)
 * one, so the latest activity is in view; `limit` makes the whole range one page.
 */
export function windowOf(range: Pick<RangePreset, 'granularity' | 'buckets'>, now: number): UsageWindow {
  const step = STEP[range.granularity];
  const end = Math.floor(now / step) * step + step;
  const start = end - range.buckets * step;
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString(), granularity: range.granularity, limit: range.buckets };
}

type ExecutionCounters = Pick<ExecutionUsageRow, 'executions' | 'succeeded' | 'failed' | 'cancelled' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'costUsd'>;
type RequestCounters = Pick<RequestUsageRow, 'requests' | 'succeeded' | 'clientErrors' | 'unauthorized' | 'forbidden' | 'rateLimited' | 'serverErrors'>;

/** One group (agent, model) over the whole range. */
export interface ExecutionGroup extends ExecutionCounters {
  id: string;
  /** p95 duration over the whole range (ms), merged by the server; null when none started. */
  p95: number | null;
}

/** One key over the whole range. */
export interface RequestGroup extends RequestCounters {
  id: string;
}

const EXECUTION_COUNTS = ['executions', 'succeeded', 'failed', 'cancelled', 'inputTokens', 'outputTokens', 'totalTokens'] as const;
const REQUEST_COUNTS = ['requests', 'succeeded', 'clientErrors', 'unauthorized', 'forbidden', 'rateLimited', 'serverErrors'] as const;

function largestFirst<T extends { id: string }>(groups: Iterable<T>, size: (g: T) => number): T[] {
  return [...groups].sort((a, b) => size(b) - size(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The per-group rows of analytics.byGroup (one per agent or model over the whole range), keyed by their group. */
export function executionGroups(rows: ExecutionUsageRow[], field: 'agentId' | 'model'): ExecutionGroup[] {
  const groups = rows.flatMap((row) => {
    const id = row[field];
    if (id === undefined) return [];
    const group: ExecutionGroup = { id, costUsd: row.costUsd, p95: row.durationMs?.p95 ?? null } as ExecutionGroup;
    for (const k of EXECUTION_COUNTS) group[k] = row[k];
    return [group];
  });
  return largestFirst(groups, (g) => g.executions);
}

/** The per-key rows of analytics.byGroup, keyed by their key id. */
export function requestGroups(rows: RequestUsageRow[]): RequestGroup[] {
  const groups = rows.flatMap((row) => {
    if (row.keyId === undefined) return [];
    const group = { id: row.keyId } as RequestGroup;
    for (const k of REQUEST_COUNTS) group[k] = row[k];
    return [group];
  });
  return largestFirst(groups, (g) => g.requests);
}

/** Failed executions among those that ended (cancelled ones are not failures); null with none. */
export const failureRate = (row: { executions: number; failed: number }): number | null => (row.executions > 0 ? row.failed / row.executions : null);

/** Requests that were refused or failed: every answer but 2xx and 3xx. */
export const errorsOf = (row: { requests: number; succeeded: number }): number => row.requests - row.succeeded;

// ---- formatting ----

const usdCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usdSmall = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });

/** An estimated cost: "$12.34", "$0.0042" below a cent, "unknown" when a model has no price (never $0). */
export function formatUsd(value: number | null): string {
  if (value === null) return 'unknown';
  return value > 0 && value < 0.01 ? usdSmall.format(value) : usdCents.format(value);
}

/**
 * The range's estimated cost for its summary card. When tokens of a model without a price were
 * used the total is unknown: then the priced models' part is a floor ("≥ $1.20"), and the
 * models without a price are named.
 */
export function costSummary(total: number | null, models: readonly Pick<ExecutionGroup, 'id' | 'costUsd'>[], testMode: boolean): { value: string; detail: string } {
  if (total !== null) return { value: formatUsd(total), detail: testMode ? 'Test runs are never charged' : 'From the price table' };
  const unpriced = models.filter((m) => m.costUsd === null).map((m) => m.id);
  const known = models.reduce((sum, m) => sum + (m.costUsd ?? 0), 0);
  const which = unpriced.length === 1 ? `${unpriced[0]} has no price` : unpriced.length > 1 ? `${unpriced.length} models have no price` : 'A model has no price';
  return known > 0 ? { value: `≥ ${formatUsd(known)}`, detail: `Priced models only: ${which}` } : { value: formatUsd(null), detail: which };
}

/** A share as a percentage with one decimal; "—" when there is nothing to divide. */
export function formatPercent(value: number | null): string {
  if (value === null) return '—';
  if (value > 0 && value < 0.001) return '<0.1%';
  return `${(value * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

/**
 * The top of a chart's value axis: 10 % above the highest value, rounded up so that `ticks` ticks
 * from 0 fall on round numbers (151 → 200 for 0, 50, … 200).
 */
export function niceTop(max: number, ticks: number): number {
  if (!(max > 0)) return 1;
  const raw = (max * 1.1) / (ticks - 1);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  return step * (ticks - 1);
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** A large count shortened: 1,234,567 → "1.2M". */
export function formatCompact(n: number): string {
  return compact.format(n);
}

const hourLabel = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayLabel = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric' });
const hourTitle = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayTitle = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });

/** A bucket's short name on a chart's axis: "14:00" or "Nov 21" (UTC, as the buckets are). */
export function bucketLabel(start: string, granularity: Granularity): string {
  return (granularity === 'hour' ? hourLabel : dayLabel).format(new Date(start));
}

/** A bucket's full name, in tooltips and tables: "Nov 21, 14:00 UTC" or "Nov 21, 2026". */
export function bucketTitle(start: string, granularity: Granularity): string {
  return granularity === 'hour' ? `${hourTitle.format(new Date(start))} UTC` : dayTitle.format(new Date(start));
}
