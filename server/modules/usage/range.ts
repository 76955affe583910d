import type { Granularity } from '../../../db/schema';
import { ApiError } from '../../platform/errors';

// Which buckets a usage query covers and which of them one page holds (docs/analytics.md):
// `start` is floored to the granularity's UTC boundary; `end` (default now, exclusive) is
// rounded up to one, so every bucket is whole; a page holds `limit` buckets from the cursor on.

export const BUCKET_MS: Record<Granularity, number> = { hour: 3_600_000, day: 86_400_000 };
const DAY_MS = 86_400_000;

/** How far back each granularity is kept, and so may be asked for. */
export const RETENTION_DAYS: Record<Granularity, number> = { hour: 90, day: 731 };
export const LIMITS: Record<Granularity, { default: number; max: number }> = {
  hour: { default: 24, max: 168 },
  day: { default: 31, max: 366 },
};

export interface RangeInput {
  start: string;
  end?: string;
  granularity?: Granularity;
  limit?: number;
  after?: string;
}

export interface Range {
  granularity: Granularity;
  /** The whole query: [start, end), whole buckets. */
  start: number;
  end: number;
  /** This page: [pageStart, pageEnd). */
  pageStart: number;
  pageEnd: number;
  hasMore: boolean;
  nextCursor?: string;
}

// An ISO 8601 date (2026-11-01) or date-time with a zone (Z or ±hh:mm), seconds and fraction optional.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/i;

/** A real calendar day (Date.parse takes 2026-02-30 for March 2nd). */
function isDay(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function parseTime(value: string, param: 'start' | 'end'): number {
  const m = ISO.exec(value);
  const t = m && isDay(Number(m[1]), Number(m[2]), Number(m[3])) ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value) : NaN;
  if (Number.isNaN(t)) {
    throw new ApiError('invalid_parameter', `Invalid '${param}': expected an ISO 8601 date or date-time with a zone, e.g. 2026-11-01 or 2026-11-01T00:00:00Z`, { param });
  }
  return t;
}

/**
 * The latest `end`, a day boundary: rounded up to a bucket, a later one (9999-12-31T00:00:01Z)
 * became year 10000, which the database cannot read as written (`+010000-01-01T…`): a 500.
 */
const LATEST = Date.UTC(9999, 11, 31);

const floor = (t: number, g: Granularity) => t - (((t % BUCKET_MS[g]) + BUCKET_MS[g]) % BUCKET_MS[g]);
const ceil = (t: number, g: Granularity) => (floor(t, g) === t ? t : floor(t, g) + BUCKET_MS[g]);

// Cursors are opaque: the granularity and the start of the next page's first bucket.
const encodeCursor = (g: Granularity, t: number) => Buffer.from(`u1:${g}:${t}`).toString('base64url');
function decodeCursor(cursor: string): { g: string; t: number } | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const m = /^u1:(hour|day):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return m ? { g: m[1]!, t: Number(m[2]) } : null;
}

export function planRange(input: RangeInput, now = Date.now()): Range {
  const granularity = input.granularity ?? 'day';
  const step = BUCKET_MS[granularity];
  const rawStart = parseTime(input.start, 'start');
  const start = floor(rawStart, granularity);
  const oldest = floor(now, 'day') - RETENTION_DAYS[granularity] * DAY_MS;
  if (start < oldest) {
    throw new ApiError(
      'invalid_parameter',
      `Invalid 'start': ${granularity} buckets are kept for ${RETENTION_DAYS[granularity]} days; the earliest start is ${new Date(oldest).toISOString()}`,
      { param: 'start' },
    );
  }
  const rawEnd = input.end === undefined ? now : parseTime(input.end, 'end');
  if (rawEnd > LATEST) {
    throw new ApiError('invalid_parameter', `Invalid 'end': it must be at most ${new Date(LATEST).toISOString()}`, { param: 'end' });
  }
  if (rawEnd <= rawStart) throw new ApiError('invalid_parameter', "Invalid 'end': it must be after 'start'", { param: 'end' });
  const end = ceil(rawEnd, granularity);
  const { default: fallback, max } = LIMITS[granularity];
  const limit = input.limit ?? fallback;
  if (limit < 1 || limit > max) {
    throw new ApiError('invalid_parameter', `Invalid 'limit': ${granularity} pages hold 1–${max} buckets`, { param: 'limit' });
  }
  let pageStart = start;
  if (input.after !== undefined) {
    const cursor = decodeCursor(input.after);
    if (!cursor || cursor.g !== granularity || cursor.t <= start || cursor.t >= end || floor(cursor.t, granularity) !== cursor.t) {
      throw new ApiError('invalid_cursor', "'after' is not a cursor of this query: pass the nextCursor of its previous page", { param: 'after' });
    }
    pageStart = cursor.t;
  }
  const pageEnd = Math.min(end, pageStart + limit * step);
  const hasMore = pageEnd < end;
  return { granularity, start, end, pageStart, pageEnd, hasMore, ...(hasMore ? { nextCursor: encodeCursor(granularity, pageEnd) } : {}) };
}

/** The starts of the buckets of [from, to). */
export function bucketStarts(g: Granularity, from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += BUCKET_MS[g]) out.push(t);
  return out;
}
