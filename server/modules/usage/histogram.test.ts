import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALPHA, bucketOf, Digest, format, join, percentiles } from './histogram';

// The log-scale histograms of usage analytics: percentiles within ALPHA of the exact ones, on
// one histogram and on many added up (text joined, or summed into a Digest while read).

const exact = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil(q * values.length)) - 1]!;
const close = (got: number, want: number) => Math.abs(got - want) <= Math.max(1, want * ALPHA) + 0.5;

function histogramOf(values: number[]): string {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(bucketOf(v), (counts.get(bucketOf(v)) ?? 0) + 1);
  return format(counts);
}

// Deterministic spread: 1 ms to ~20 s, log-uniform-ish.
const sample = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Math.round(Math.exp(((i * 7919 + seed * 104729) % 10007) / 1000)));

describe('usage histograms', () => {
  it('give p50/p95/p99 within 2 % (or 1 ms) of the exact values', () => {
    for (const seed of [1, 2, 3]) {
      const values = sample(5_000, seed);
      const p = percentiles(histogramOf(values))!;
      for (const [q, got] of [[0.5, p.p50], [0.95, p.p95], [0.99, p.p99]] as const) assert.ok(close(got, exact(values, q)), `q=${q}: ${got} vs ${exact(values, q)}`);
    }
  });

  it('add up: histograms joined as text, or summed into a Digest, read like one of all the values', () => {
    const parts = [sample(300, 1), sample(1_000, 2), sample(17, 3)];
    const all = parts.flat();
    const joined = percentiles(join(...parts.map(histogramOf)))!;
    const tap = new Digest();
    for (const part of parts) percentiles(histogramOf(part), tap);
    assert.deepEqual(tap.percentiles(), joined);
    assert.ok(close(joined.p95, exact(all, 0.95)));
  });

  it('read nothing as null, sub-millisecond durations as about 1 ms, and skip what is not a pair', () => {
    assert.equal(percentiles(''), null);
    assert.deepEqual(percentiles('0:3'), { p50: 1, p95: 1, p99: 1 });
    assert.deepEqual(percentiles(',,garbage,157:0,x:1,100'), null);
    const one = percentiles(`${bucketOf(1500)}:2`)!;
    assert.ok(close(one.p50, 1500));
  });
});
