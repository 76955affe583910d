import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BucketCache, type BucketEntry } from './bucket-cache';

const entry = (start: number, rows: number): BucketEntry<number> => ({ start, rows: Array.from({ length: rows }, (_, i) => i), counts: {}, hist: [] });

describe('the cache of settled usage buckets', () => {
  it('answers a run of buckets only when it holds every one of them', () => {
    const cache = new BucketCache(1_000);
    cache.setAll('w|', [entry(1, 2), entry(2, 0), entry(3, 1)]);
    assert.deepEqual(cache.getAll<number>('w|', [1, 2, 3])?.map((e) => e.start), [1, 2, 3]);
    assert.equal(cache.getAll('w|', [1, 2, 3, 4]), null);
    assert.equal(cache.getAll('v|', [1]), null, 'another prefix (workspace, series, filters) is another entry');
  });

  it('holds at most its number of rows, the least recently used going first', () => {
    const cache = new BucketCache(100);
    cache.setAll('a|', [entry(1, 20)]);
    cache.setAll('b|', [entry(1, 20)]);
    cache.setAll('c|', [entry(1, 20)]);
    cache.getAll('a|', [1]);
    cache.setAll('d|', [entry(1, 20)]);
    cache.setAll('e|', [entry(1, 20)]);
    cache.setAll('f|', [entry(1, 20)]);
    assert.ok(cache.size <= 100);
    assert.ok(cache.getAll('a|', [1]), 'used recently: kept');
    assert.equal(cache.getAll('b|', [1]), null, 'least recently used: gone');
    cache.setAll('g|', [entry(1, 30)]);
    assert.equal(cache.getAll('g|', [1]), null, 'one answer may not take more than a quarter of it');
  });
});
