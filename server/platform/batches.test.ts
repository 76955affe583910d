import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { batches, groupedBy } from './batches';

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
    for (const n of [1, 2, 3]) {
      queue.push(n);
      kick();
    }
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

describe('groupedBy', () => {
  /** A `run` that answers when released, recording each group it was sent. */
  function gate() {
    const sent: [string, number[]][] = [];
    const releases: (() => void)[] = [];
    let fail = false;
    const run = async (key: string, items: number[]) => {
      sent.push([key, items]);
      await new Promise<void>((r) => releases.push(r));
      if (fail) throw new Error('the store failed');
      return items.map((n) => `${key}:${n}`);
    };
    return { sent, releases, run, failNext: (v: boolean) => (fail = v) };
  }

  it('sends a lone call at once, and the calls made meanwhile as one group, answered in order', async () => {
    const g = gate();
    const call = groupedBy(g.run);
    const first = call('k', 1);
    assert.deepEqual(g.sent, [['k', [1]]]);
    const rest = [2, 3, 4].map((n) => call('k', n));
    await turn();
    assert.equal(g.sent.length, 1, 'nothing else is sent while the first is under way');
    g.releases.shift()!();
    assert.equal(await first, 'k:1');
    await turn();
    assert.deepEqual(g.sent[1], ['k', [2, 3, 4]]);
    g.releases.shift()!();
    assert.deepEqual(await Promise.all(rest), ['k:2', 'k:3', 'k:4']);
    // Idle again: the next call goes at once.
    void call('k', 5);
    assert.deepEqual(g.sent[2], ['k', [5]]);
    g.releases.shift()!();
  });

  it('keeps each key to itself, and groups at most `max` calls', async () => {
    const g = gate();
    const call = groupedBy(g.run, 2);
    const answers = [call('a', 1), call('b', 1), call('a', 2), call('a', 3), call('a', 4)];
    assert.deepEqual(g.sent, [
      ['a', [1]],
      ['b', [1]],
    ]);
    while (g.sent.length < 4) {
      g.releases.shift()!();
      await turn();
    }
    g.releases.splice(0).forEach((r) => r());
    assert.deepEqual(g.sent.slice(2), [
      ['a', [2, 3]],
      ['a', [4]],
    ]);
    assert.deepEqual(await Promise.all(answers), ['a:1', 'b:1', 'a:2', 'a:3', 'a:4']);
  });

  it('fails every call of a group that failed, and sends the next group anyway', async () => {
    const g = gate();
    const call = groupedBy(g.run);
    g.failNext(true);
    const first = call('k', 1);
    const group = [call('k', 2), call('k', 3)];
    g.releases.shift()!();
    await assert.rejects(first, /the store failed/);
    g.failNext(false);
    await turn();
    g.releases.shift()!();
    assert.deepEqual(await Promise.all(group), ['k:2', 'k:3']);
  });
});
