import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUnknownKeys } from './unknown-keys';

describe('the negative cache of unknown key hashes', () => {
  it('remembers a hash for its time to live only', () => {
    const cache = createUnknownKeys({ ttlMs: 60_000 });
    cache.add('a', 1_000);
    assert.equal(cache.has('a', 60_999), true);
    assert.equal(cache.has('a', 61_000), false);
    assert.equal(cache.size, 0, 'an expired entry is dropped when seen');
    assert.equal(cache.has('b', 1_000), false);
  });

  it('holds at most `max` hashes, dropping the oldest first', () => {
    const cache = createUnknownKeys({ max: 3 });
    for (const h of ['a', 'b', 'c', 'd']) cache.add(h, 0);
    assert.equal(cache.size, 3);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((h) => cache.has(h, 1)), [false, true, true, true]);
    cache.add('b', 10);
    cache.add('e', 10);
    assert.deepEqual(['b', 'c', 'd', 'e'].map((h) => cache.has(h, 11)), [true, false, true, true]);
  });
});
