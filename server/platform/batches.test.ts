import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { batches } from './batches';

describe('batches', () => {
  it('takes what was asked for in one turn together, and what came during a batch in the next', async () => {
    const queue: number[] = [];
    const done: number[][] = [];
    let release: () => void = () => {};
    const kick = batches(
      () => queue.length > 0,
      async () => {
        const batch = queue.splice(0);
        await new Promise<void>((r) => (release = r));
        done.push(batch);
      },
    );
    for (const n of [1, 2, 3]) (queue.push(n), kick());
    await turn();
    queue.push(4);
    kick();
    queue.push(5);
    kick();
    release();
    await turn();
    await turn();
    release();
    await turn();
    assert.deepEqual(done, [[1, 2, 3], [4, 5]]);
  });

  it('a step that throws is logged, not left unhandled, and the next kick runs', async () => {
    const queue: number[] = [];
    const done: number[] = [];
    const kick = batches(
      () => queue.length > 0,
      async () => {
        const n = queue.shift()!;
        if (n === 1) throw new Error('boom');
        done.push(n);
      },
    );
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    queue.push(1);
    kick();
    await turn();
    await turn();
    queue.push(2);
    kick();
    await turn();
    await turn();
    process.off('unhandledRejection', onUnhandled);
    assert.deepEqual(done, [2]);
    assert.deepEqual(unhandled, []);
  });
});
