import { sql, type SQL } from 'drizzle-orm';
import type { Histogram } from '../../db/schema';

// Durations kept as fixed log-scale histograms (the DDSketch mapping): a duration d > 1 ms falls
// in bucket k = ceil(log_γ d), i.e. (γ^(k−1), γ^k], and is read back as 2γ^k / (γ + 1), within
// ALPHA of every value in that bucket; d ≤ 1 ms falls in bucket 0, read back as 0.5 ms (within
// 1 ms). The buckets are fixed, so histograms of any rows, hours, days or processes add up
// bucket by bucket, and a percentile of the sum is as exact as one of a single row: never an
// average of averages (docs/analytics.md).

/** The relative error of a percentile read from a histogram (2 %; the contract allows 5 %). */
export const ALPHA = 0.02;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LN_GAMMA = Math.log(GAMMA);

/** The bucket of a duration in milliseconds. */
export function bucketOf(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log(ms) / LN_GAMMA);
}

/** The same mapping in SQL, for a column or expression of milliseconds. */
export const bucketSql = (ms: SQL): SQL =>
  sql`(case when ${ms} <= 1 then 0 else ceil(ln(${ms}) / ${sql.raw(String(LN_GAMMA))})::int end)`;

/** The value a bucket stands for. */
export function valueOf(bucket: number): number {
  return bucket <= 0 ? 0.5 : (2 * GAMMA ** bucket) / (GAMMA + 1);
}

/** Adds `from` into `into` (mutates and returns `into`). */
export function addInto(into: Map<number, number>, from: Histogram | Map<number, number> | null | undefined): Map<number, number> {
  if (!from) return into;
  const entries = from instanceof Map ? from.entries() : Object.entries(from);
  for (const [k, n] of entries) {
    const key = Number(k);
    into.set(key, (into.get(key) ?? 0) + Number(n));
  }
  return into;
}

export function toRecord(hist: Map<number, number>): Histogram {
  const out: Histogram = {};
  for (const [k, n] of hist) if (n > 0) out[String(k)] = n;
  return out;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/**
 * p50, p95 and p99 of a histogram by nearest rank (the value at rank ⌈q·n⌉), rounded to whole
 * milliseconds; null when it holds nothing.
 */
export function percentiles(hist: Map<number, number>): Percentiles | null {
  const keys = [...hist.keys()].filter((k) => (hist.get(k) ?? 0) > 0).sort((a, b) => a - b);
  const total = keys.reduce((n, k) => n + hist.get(k)!, 0);
  if (total === 0) return null;
  const at = (q: number) => {
    const rank = Math.max(1, Math.ceil(q * total));
    let seen = 0;
    for (const k of keys) {
      seen += hist.get(k)!;
      if (seen >= rank) return Math.round(valueOf(k));
    }
    return Math.round(valueOf(keys[keys.length - 1]!));
  };
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}
