import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { Environment, Granularity } from '../../../db/schema';
import { queryRows } from '../../../db/rows';
import { env } from '../../platform/env.js';
import { ApiError } from '../../platform/errors';
import { BucketCache, SETTLE_MS, type BucketEntry } from './bucket-cache';
import { Digest, join, percentiles, type Percentiles } from './histogram';
import { bucketStarts, BUCKET_MS, type Range } from './range';

// What the two usage series share (docs/analytics.md): one query per page that sums a series'
// counters by bucket (and by the requested groups) and gathers its duration histograms; then
// every bucket of the page, empty ones included, its groups largest first, and the totals of
// the whole range (from the same rows when the page is the whole range).

export interface Scope {
  workspaceId: string;
  environment: Environment;
}

/** A series' sums for one bucket and group (`bucket` null in totals); `hist` in text form. */
export interface Sums {
  bucket: number | null;
  group: Record<string, string>;
  counts: Record<string, number>;
  hist: string;
}

export interface SeriesQuery {
  granularity: Granularity;
  from: number;
  to: number;
  /** Columns to group by (beside the bucket), as `[field, column]`. */
  groups: [string, string][];
  byBucket: boolean;
}

export interface Series<Row> {
  /** What the series is and its filters: the same key, the same rows (bucket-cache.ts). */
  key: string;
  /**
   * The rows to sum, as a subquery with the columns `bucket`, the group columns, the counters
   * of `counts` and `duration_hist`.
   */
  source(scope: Scope, q: SeriesQuery): SQL;
  /** The counters: `[name, aggregate expression over the source's columns]`. */
  counts: [string, SQL][];
  /** The row of some sums, with the percentiles of their histogram. */
  view(sums: Sums, durations: Percentiles | null): Row;
  /** How large a group is, to order a bucket's groups. */
  size(row: Row): number;
}

/**
 * Groups one answer may hold (all its buckets together): a workspace with thousands of agents
 * cannot make one query build and hold millions of rows on the event loop (the 366-day query by
 * ten agents is 3,660 groups, ~60 ms).
 */
export const MAX_ROWS = 10_000;

/**
 * The sums by bucket and group, histograms joined as text, read as one text value: a line per
 * group, its fields separated by tabs (group values are ids, statuses and model names, which
 * hold neither; docs/analytics.md). Thousands of rows as protocol messages cost PGlite 65–90 ms
 * where this costs it 20–27 (and postgres.js about the same as rows); JSON built by the database
 * was slower than both.
 */
export async function sumSeries(db: Db, scope: Scope, series: Series<unknown>, q: SeriesQuery): Promise<Sums[]> {
  const keys: SQL[] = [...(q.byBucket ? [sql`bucket`] : []), ...q.groups.map(([, column]) => sql.raw(column))];
  const selected = sql.join(
    [
      ...keys,
      ...series.counts.map(([name, expr]) => sql`${expr} as ${sql.identifier(name)}`),
      sql`coalesce(string_agg(nullif(duration_hist, ''), ','), '') as duration_hist`,
    ],
    sql`, `,
  );
  const fields = sql.join(
    [
      ...(q.byBucket ? [sql`(extract(epoch from bucket) * 1000)::bigint`] : []),
      ...q.groups.map(([, column]) => sql.raw(column)),
      ...series.counts.map(([name]) => sql.identifier(name)),
      sql`duration_hist`,
    ],
    sql`, `,
  );
  const grouped = sql`select ${selected} from (${series.source(scope, q)}) u ${keys.length ? sql`group by ${sql.join(keys, sql`, `)}` : sql``}`;
  const [result] = await queryRows<{ doc: string | null }>(
    db,
    sql`select string_agg(concat_ws(E'\t', ${fields}), E'\n') as doc from (${grouped} limit ${sql.raw(String(MAX_ROWS + 1))}) g`,
  );
  if (!result?.doc) return [];
  const lines = result.doc.split('\n');
  if (lines.length > MAX_ROWS) {
    throw new ApiError(
      'invalid_parameter',
      `Invalid 'groupBy': this answer would hold more than ${MAX_ROWS.toLocaleString('en')} groups; ask for fewer buckets (limit) or filter (agentId, model, status, keyId)`,
      { param: 'groupBy' },
    );
  }
  const out: Sums[] = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const parts = lines[i]!.split('\t');
    let at = 0;
    const bucket = q.byBucket ? Number(parts[at++]) : null;
    const group: Record<string, string> = {};
    for (const [field] of q.groups) group[field] = parts[at++]!;
    const counts: Record<string, number> = {};
    for (const [name] of series.counts) counts[name] = Number(parts[at++]);
    out[i] = { bucket, group, counts, hist: parts[at] ?? '' };
  }
  return out;
}

/** The sum of several sums (counters added; histograms joined unless `hists` is false). */
export function sumAll(series: Series<unknown>, list: Sums[], hists = true): Sums {
  const counts: Record<string, number> = {};
  for (const [name] of series.counts) {
    let total = 0;
    for (const s of list) total += Number(s.counts[name] ?? 0);
    counts[name] = total;
  }
  return { bucket: null, group: {}, counts, hist: hists ? join(...list.map((s) => s.hist)) : '' };
}

export interface SeriesAnswer<Row> {
  granularity: Granularity;
  data: { start: string; end: string; results: Row[] }[];
  totals: Row;
  hasMore: boolean;
  nextCursor?: string;
}

/** The cache of settled buckets, one per process (Next may load this module more than once). */
function processCache(): BucketCache {
  const g = globalThis as unknown as Record<symbol, BucketCache | undefined>;
  return (g[Symbol.for('agent-service.usage-buckets')] ??= new BucketCache(env.USAGE_CACHE_ROWS));
}

/** The entries of the buckets of [from, to): each bucket's rows, largest group first, its counters and histogram. */
function entriesOf<Row>(series: Series<Row>, g: Granularity, from: number, to: number, grouped: boolean, sums: Sums[]): BucketEntry<Row>[] {
  const generic = series as Series<unknown>;
  const byBucket = new Map<number, Sums[]>();
  for (const s of sums) {
    const list = byBucket.get(s.bucket!) ?? [];
    list.push(s);
    byBucket.set(s.bucket!, list);
  }
  const bucketHist = new Digest();
  const view = (s: Sums) => series.view(s, percentiles(s.hist, bucketHist));
  return bucketStarts(g, from, to).map((start) => {
    const found = byBucket.get(start) ?? [];
    let rows: Row[];
    if (!grouped) {
      // Exactly one row per bucket, zeros when nothing happened.
      rows = [view(sumAll(generic, found))];
    } else {
      rows = found
        .map((s) => ({ row: view(s), tie: Object.values(s.group).join('\u0000') }))
        .sort((a, b) => series.size(b.row) - series.size(a.row) || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0))
        .map((x) => x.row);
    }
    return { start, rows, counts: sumAll(generic, found, false).counts, hist: bucketHist.drain() };
  });
}

/**
 * One page of a series: every bucket of the page, and the totals of the whole range. Buckets
 * that settled (bucket-cache.ts) come from this process's memory when it read them before;
 * the rest — the current bucket, usually — from the database.
 */
export async function seriesPage<Row>(
  db: Db,
  scope: Scope,
  series: Series<Row>,
  range: Range,
  groups: [string, string][],
  now = Date.now(),
  cache: BucketCache = processCache(),
): Promise<SeriesAnswer<Row>> {
  const g = range.granularity;
  const step = BUCKET_MS[g];
  const generic = series as Series<unknown>;
  const grouped = groups.length > 0;
  const read = async (from: number, to: number) =>
    from >= to ? [] : entriesOf(series, g, from, to, grouped, await sumSeries(db, scope, generic, { granularity: g, from, to, groups, byBucket: true }));

  const settled = Math.min(range.pageEnd, Math.max(range.pageStart, Math.floor((now - SETTLE_MS) / step) * step));
  const prefix = `${scope.workspaceId}|${scope.environment}|${series.key}|${g}|${groups.map(([field]) => field).join(',')}|`;
  let past = cache.getAll<Row>(prefix, bucketStarts(g, range.pageStart, settled));
  if (!past) {
    past = await read(range.pageStart, settled);
    cache.setAll(prefix, past);
  }
  const entries = [...past, ...(await read(settled, range.pageEnd))];

  let totals: Row;
  if (range.pageStart === range.start && range.pageEnd === range.end) {
    // The page is the whole range: its buckets add up to the totals.
    const hist = new Digest();
    const counts: Record<string, number> = {};
    for (const [name] of series.counts) counts[name] = 0;
    for (const e of entries) {
      for (const name in counts) counts[name]! += e.counts[name] ?? 0;
      hist.putPairs(e.hist);
    }
    totals = series.view({ bucket: null, group: {}, counts, hist: '' }, hist.percentiles());
  } else {
    const all = sumAll(generic, await sumSeries(db, scope, generic, { granularity: g, from: range.start, to: range.end, groups: [], byBucket: false }));
    totals = series.view(all, percentiles(all.hist));
  }
  return {
    granularity: g,
    data: entries.map((e) => ({ start: new Date(e.start).toISOString(), end: new Date(e.start + step).toISOString(), results: e.rows })),
    totals,
    hasMore: range.hasMore,
    ...(range.nextCursor ? { nextCursor: range.nextCursor } : {}),
  };
}
