import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Environment, Granularity, Histogram } from '../../db/schema';
import { queryRows } from '../../db/rows';
import { addInto } from './histogram';
import { bucketStarts, BUCKET_MS, type Range } from './range';

// What the two usage series share (docs/analytics.md): one query per page that sums a series'
// counters by bucket (and by the requested groups) and gathers its duration histograms; then
// every bucket of the page, empty ones included, its groups largest first, and the totals of
// the whole range (from the same rows when the page is the whole range).

export interface Scope {
  workspaceId: string;
  environment: Environment;
}

/** A series' sums for one bucket and group (`bucket` null in totals). */
export interface Sums {
  bucket: number | null;
  group: Record<string, string>;
  counts: Record<string, number>;
  hist: Map<number, number>;
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
  view(sums: Sums): Row;
  /** How large a group is, to order a bucket's groups. */
  size(row: Row): number;
}

export async function sumSeries(db: Db, scope: Scope, series: Series<unknown>, q: SeriesQuery): Promise<Sums[]> {
  const keys: SQL[] = [...(q.byBucket ? [sql`bucket`] : []), ...q.groups.map(([, column]) => sql.raw(column))];
  const selected = sql.join(
    [
      ...keys,
      ...series.counts.map(([name, expr]) => sql`${expr} as ${sql.identifier(name)}`),
      sql`coalesce(jsonb_agg(duration_hist) filter (where duration_hist <> '{}'::jsonb), '[]'::jsonb) as hists`,
    ],
    sql`, `,
  );
  const rows = await queryRows<Record<string, unknown> & { bucket?: Date | string; hists: Histogram[] }>(
    db,
    sql`select ${selected} from (${series.source(scope, q)}) u ${keys.length ? sql`group by ${sql.join(keys, sql`, `)}` : sql``}`,
  );
  return rows.map((row) => {
    const hist = new Map<number, number>();
    for (const h of row.hists) addInto(hist, h);
    return {
      bucket: q.byBucket ? new Date(row.bucket!).getTime() : null,
      group: Object.fromEntries(q.groups.map(([field, column]) => [field, String(row[column])])),
      counts: Object.fromEntries(series.counts.map(([name]) => [name, Number(row[name] ?? 0)])),
      hist,
    };
  });
}

/** Adds `from` into `into` (counters and histogram). */
function addSums(into: Sums, from: Sums): void {
  for (const [k, v] of Object.entries(from.counts)) into.counts[k] = (into.counts[k] ?? 0) + v;
  addInto(into.hist, from.hist);
}

const empty = (series: Series<unknown>): Sums => ({
  bucket: null,
  group: {},
  counts: Object.fromEntries(series.counts.map(([name]) => [name, 0])),
  hist: new Map(),
});

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
  const totals = empty(generic);
  if (whole) for (const s of page) addSums(totals, s);
  else for (const s of await sumSeries(db, scope, generic, { granularity: g, from: range.start, to: range.end, groups: [], byBucket: false })) addSums(totals, s);

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
      const one = empty(generic);
      for (const s of found) addSums(one, s);
      results = [series.view(one)];
    } else {
      results = found
        .map((s) => ({ row: series.view(s), tie: JSON.stringify(s.group) }))
        .sort((a, b) => series.size(b.row) - series.size(a.row) || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0))
        .map((x) => x.row);
    }
    return { start: new Date(start).toISOString(), end: new Date(start + BUCKET_MS[g]).toISOString(), results };
  });
  return {
    granularity: g,
    data,
    totals: series.view(totals),
    hasMore: range.hasMore,
    ...(range.nextCursor ? { nextCursor: range.nextCursor } : {}),
  };
}


