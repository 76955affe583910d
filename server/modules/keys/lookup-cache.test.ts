import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keptLookups } from './lookup-cache';

describe('keptLookups', () => {
  it('keeps a row read before no change, and drops every row on a change', () => {
    const kept = keptLookups<string>();
    kept.keep('a', 'row a', kept.generation());
    assert.equal(kept.get('a'), 'row a');
    kept.clear();
    assert.equal(kept.get('a'), undefined);
    assert.equal(kept.size, 0);
  });

  it('does not keep a row whose read overlapped a change (it may be the old row)', () => {
    const kept = keptLookups<string>();
    const at = kept.generation();
    // The lookup's statement is under way when a revoke commits and is signalled.
    kept.clear();
    kept.keep('a', 'row read before the revoke', at);
    assert.equal(kept.get('a'), undefined);
    kept.keep('a', 'row read after', kept.generation());
    assert.equal(kept.get('a'), 'row read after');
  });

  it('holds at most its bound, dropping the oldest first', () => {
    const kept = keptLookups<number>(3);
    for (let i = 0; i < 5; i++) kept.keep(`h${i}`, i, kept.generation());
    assert.equal(kept.size, 3);
    assert.deepEqual(['h0', 'h1', 'h2', 'h3', 'h4'].map((h) => kept.get(h)), [undefined, undefined, 2, 3, 4]);
    // Keeping a hash again does not drop another.
    kept.keep('h4', 40, kept.generation());
    assert.equal(kept.size, 3);
    assert.equal(kept.get('h2'), 2);
  });
});
