import { sql, type SQL } from 'drizzle-orm';

// Durations kept as fixed log-scale histograms (the DDSketch mapping): a duration d > 1 ms falls
// in bucket k = ceil(log_γ d), i.e. (γ^(k−1), γ^k], and is read back as 2γ^k / (γ + 1), within
// ALPHA of every value in that bucket; d ≤ 1 ms falls in bucket 0, read back as 0.5 ms (within
// 1 ms). The buckets are fixed, so histograms of any rows, hours, days or processes add up
// bucket by bucket, and a percentile of the sum is as exact as one of a single row: never an
// average of averages (docs/analytics.md).
//
// Stored and moved as text, `<bucket>:<count>` pairs joined by commas (`157:1,158:4`): adding two
// is joining them with a comma (a bucket may then repeat; readers add its counts), which is how
// a query gathers a group's histograms in the database without parsing any of them.

/** The relative error of a percentile read from a histogram (2 %; the contract allows 5 %). */
export const ALPHA = 0.02;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LN_GAMMA = Math.log(GAMMA);
/** Buckets above this one are counted in it (γ^2047 ms is far beyond any duration). */
const MAX_BUCKET = 2047;

/** The bucket of a duration in milliseconds. */
export function bucketOf(ms: number): number {
  return ms <= 1 ? 0 : Math.min(MAX_BUCKET, Math.ceil(Math.log(ms) / LN_GAMMA));
}

/** The same mapping in SQL, for a column or expression of milliseconds. */
export const bucketSql = (ms: SQL): SQL =>
  sql`(case when ${ms} <= 1 then 0 else least(${sql.raw(String(MAX_BUCKET))}, ceil(ln(${ms}) / ${sql.raw(String(LN_GAMMA))})::int) end)`;

/** The value a bucket stands for. */
export function valueOf(bucket: number): number {
  return bucket <= 0 ? 0.5 : (2 * GAMMA ** bucket) / (GAMMA + 1);
}

/** A histogram held in memory while counting (requests.ts): bucket → count. */
export type Counts = Map<number, number>;

/** The text form of counts (buckets in order). */
export function format(counts: Counts): string {
  return [...counts]
    .filter(([, n]) => n > 0)
    .sort((a, b) => a[0] - b[0])
    .map(([k, n]) => `${k}:${n}`)
    .join(',');
}

/** Joins histograms in text form (their sum). */
export const join = (...texts: string[]): string => texts.filter((t) => t !== '').join(',');

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** A histogram summed from many (the totals of a range), bucket by bucket. */
export class Digest {
  readonly counts = new Float64Array(MAX_BUCKET + 1);
  low = MAX_BUCKET + 1;
  high = -1;

  put(k: number, n: number): void {
    this.counts[k] = this.counts[k]! + n;
    if (k < this.low) this.low = k;
    if (k > this.high) this.high = k;
  }

  /** Adds `[bucket, count, bucket, count, …]`. */
  putPairs(pairs: readonly number[]): void {
    for (let i = 0; i < pairs.length; i += 2) this.put(pairs[i]!, pairs[i + 1]!);
  }

  percentiles(): Percentiles | null {
    return read(this.counts, this.low, this.high, null);
  }

  /** Its counts as `[bucket, count, …]`, and empties it. */
  drain(): number[] {
    const pairs: number[] = [];
    for (let k = this.low; k <= this.high; k++) {
      const n = this.counts[k]!;
      if (n === 0) continue;
      pairs.push(k, n);
      this.counts[k] = 0;
    }
    this.low = MAX_BUCKET + 1;
    this.high = -1;
    return pairs;
  }
}

// One scratch array for every parse: a histogram's counts land in it, are read, and the touched
// range is cleared again (no allocation per group).
const scratch = new Float64Array(MAX_BUCKET + 1);

/** Nearest-rank p50/p95/p99 of counts[low..high]; clears that range when `clear` (added into `tap` first). */
function read(counts: Float64Array, low: number, high: number, clear: { tap?: Digest } | null): Percentiles | null {
  let total = 0;
  for (let k = low; k <= high; k++) total += counts[k]!;
  const found: number[] = [];
  if (total > 0) {
    const ranks = [0.5, 0.95, 0.99].map((q) => Math.max(1, Math.ceil(q * total)));
    let seen = 0;
    for (let k = low; k <= high && found.length < 3; k++) {
      seen += counts[k]!;
      while (found.length < 3 && seen >= ranks[found.length]!) found.push(Math.round(valueOf(k)));
    }
  }
  if (clear) {
    for (let k = low; k <= high; k++) {
      const n = counts[k]!;
      if (n === 0) continue;
      clear.tap?.put(k, n);
      counts[k] = 0;
    }
  }
  return total > 0 ? { p50: found[0]!, p95: found[1]!, p99: found[2]! } : null;
}

/**
 * p50, p95 and p99 of a histogram in text form (buckets may repeat) by nearest rank (the value
 * at rank ⌈q·n⌉), rounded to whole milliseconds; null when it holds nothing. Its counts are also
 * added into `tap`, when given (the totals of many, without parsing them twice).
 */
export function percentiles(text: string, tap?: Digest): Percentiles | null {
  let low = MAX_BUCKET + 1;
  let high = -1;
  const length = text.length;
  let i = 0;
  while (i < length) {
    // One `<bucket>:<count>` pair; anything else up to the next comma is skipped.
    let k = 0;
    let n = 0;
    let c = text.charCodeAt(i);
    while (i < length && c >= 48 && c <= 57) {
      k = k * 10 + (c - 48);
      c = text.charCodeAt(++i);
    }
    const pair = c === 58; /* : */
    c = text.charCodeAt(++i);
    while (i < length && c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      c = text.charCodeAt(++i);
    }
    while (i < length && text.charCodeAt(i) !== 44 /* , */) i++;
    i++;
    if (!pair || n === 0) continue;
    if (k > MAX_BUCKET) k = MAX_BUCKET;
    scratch[k] = scratch[k]! + n;
    if (k < low) low = k;
    if (k > high) high = k;
  }
  return read(scratch, low, high, { tap });
}
