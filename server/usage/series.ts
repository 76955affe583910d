import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Environment, Granularity } from '../../db/schema';
import { queryRows } from '../../db/rows';
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
  const [result] = await queryRows<{ doc: string | null }>(db, sql`select string_agg(concat_ws(E'\t', ${fields}), E'\n') as doc from (${grouped}) g`);
  if (!result?.doc) return [];
  const lines = result.doc.split('\n');
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

/** One page of a series: every bucket of the page, and the totals of the whole range. */
export async function seriesPage<Row>(
  db: Db,
  scope: Scope,
  series: Series<Row>,
  range: Range,
  groups: [string, string][],
): Promise<SeriesAnswer<Row>> {
  const g = range.granularity;
  const generic = series as Series<unknown>;
  const page = await sumSeries(db, scope, generic, { granularity: g, from: range.pageStart, to: range.pageEnd, groups, byBucket: true });
  const whole = range.pageStart === range.start && range.pageEnd === range.end;
  // When the page is the whole range, its rows are the totals' too: their histograms are added
  // up while each is read (one parse).
  const tap = whole ? new Digest() : undefined;
  const view = (s: Sums) => series.view(s, percentiles(s.hist, tap));

  const byBucket = new Map<number, Sums[]>();
  for (const s of page) {
    const list = byBucket.get(s.bucket!) ?? [];
    list.push(s);
    byBucket.set(s.bucket!, list);
  }
  const data = bucketStarts(g, range.pageStart, range.pageEnd).map((start) => {
    const found = byBucket.get(start) ?? [];
    let results: Row[];
    if (groups.length === 0) {
      // Exactly one row per bucket, zeros when nothing happened.
      results = [view(sumAll(generic, found))];
    } else {
      results = found
        .map((s) => ({ row: view(s), tie: Object.values(s.group).join('\u0000') }))
        .sort((a, b) => series.size(b.row) - series.size(a.row) || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0))
        .map((x) => x.row);
    }
    return { start: new Date(start).toISOString(), end: new Date(start + BUCKET_MS[g]).toISOString(), results };
  });
  let totals: Row;
  if (tap) totals = series.view(sumAll(generic, page, false), tap.percentiles());
  else {
    const all = sumAll(generic, await sumSeries(db, scope, generic, { granularity: g, from: range.start, to: range.end, groups: [], byBucket: false }));
    totals = series.view(all, percentiles(all.hist));
  }
  return {
    granularity: g,
    data,
    totals,
    hasMore: range.hasMore,
    ...(range.nextCursor ? { nextCursor: range.nextCursor } : {}),
  };
}


