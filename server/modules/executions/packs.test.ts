import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packEvents } from './packs';

// Which events share a row of the log (packs.ts): consecutive deltas with consecutive numbers,
// within the size limits; everything else alone.

const delta = (seq: number, text = `t${seq}`) => ({ seq, type: 'text.delta', data: { delta: text, step: 0 } });

describe('packEvents', () => {
  it('packs consecutive deltas and keeps every other event a row of its own', () => {
    const started = { seq: 1, type: 'execution.started', data: { execution: {} } };
    const call = { seq: 5, type: 'tool.call', data: { toolCallId: 'c', name: 'n', arguments: {}, step: 0 } };
    const done = { seq: 8, type: 'execution.succeeded', data: { execution: {} } };
    assert.deepEqual(packEvents([started, delta(2), delta(3), delta(4), call, delta(6), delta(7), done]), [
      started,
      { seq: 2, last: 4, type: 'text.delta', data: [delta(2).data, delta(3).data, delta(4).data] },
      call,
      { seq: 6, last: 7, type: 'text.delta', data: [delta(6).data, delta(7).data] },
      done,
    ]);
  });

  it('a lone delta is a plain row; a gap in the numbers starts a new pack', () => {
    assert.deepEqual(packEvents([delta(2)]), [delta(2)]);
    assert.deepEqual(packEvents([delta(2), delta(3), delta(5)]), [{ seq: 2, last: 3, type: 'text.delta', data: [delta(2).data, delta(3).data] }, delta(5)]);
  });

  it('a large delta goes alone, and a pack stops at its size limit', () => {
    const big = delta(3, 'x'.repeat(5000));
    assert.deepEqual(packEvents([delta(2), big, delta(4), delta(5)]), [delta(2), big, { seq: 4, last: 5, type: 'text.delta', data: [delta(4).data, delta(5).data] }]);
    // 3,000-character deltas: ten to a 32 KB pack.
    const rows = packEvents(Array.from({ length: 25 }, (_, i) => delta(i + 1, 'y'.repeat(3000))));
    assert.deepEqual(rows.map((r) => [r.seq, r.last]), [[1, 10], [11, 20], [21, 25]]);
  });

  it('nothing to pack: no rows', () => {
    assert.deepEqual(packEvents([]), []);
  });
});
