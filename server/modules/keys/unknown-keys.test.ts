import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUnknownKeys } from './unknown-keys';

describe('the negative cache of unknown key hashes', () => {
  it('remembers a hash for its time to live only', () => {
    let now = 1_000;
    const cache = createUnknownKeys({ ttlMs: 60_000, now: () => now });
    cache.add('a');
    now = 60_999;
    assert.equal(cache.has('a'), true);
    now = 61_000;
    assert.equal(cache.has('a'), false);
    assert.equal(cache.size, 0, 'an expired entry is dropped when seen');
    assert.equal(cache.has('b'), false);
  });

  it('holds at most `max` hashes, dropping the oldest first', () => {
    let now = 0;
    const cache = createUnknownKeys({ max: 3, now: () => now });
    for (const h of ['a', 'b', 'c', 'd']) cache.add(h);
    assert.equal(cache.size, 3);
    now = 1;
    assert.deepEqual(['a', 'b', 'c', 'd'].map((h) => cache.has(h)), [false, true, true, true]);
    now = 10;
    cache.add('b');
    cache.add('e');
    now = 11;
    assert.deepEqual(['b', 'c', 'd', 'e'].map((h) => cache.has(h)), [true, false, true, true]);
  });
});
