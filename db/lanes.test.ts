import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inLane, nameLane, Turns } from './lanes';

// The turns at the embedded database (db/lanes.ts): one call at a time, lines served in turn.

const tick = () => new Promise((r) => setImmediate(r));

describe('turns at the embedded database', () => {
  it('a request waits for the call under way and one call of each other line, not for a backlog', async () => {
    const turns = new Turns();
    const order: string[] = [];
    const call = (name: string) => () => {
      order.push(name);
      return tick();
    };
    const all: Promise<unknown>[] = [];
    // The background line (workers): 100 calls; then workspace A's stream: 50.
    for (let i = 0; i < 100; i++) all.push(turns.run(call(`bg${i}`)));
    inLane('addr:a', () => {
      nameLane('ws:A');
      for (let i = 0; i < 50; i++) all.push(turns.run(call(`A${i}`)));
    });
    assert.equal(turns.size, 149);
    // B arrives last.
    all.push(inLane('addr:b', () => (nameLane('ws:B'), turns.run(call('B')))));
    await Promise.all(all);
    // bg0 was under way; then one call of each line in turn: bg1, A0, B.
    assert.deepEqual(order.slice(0, 4), ['bg0', 'bg1', 'A0', 'B']);
    assert.equal(order.length, 151);
    assert.equal(turns.size, 0);
  });

  it('one call at a time; a failing call gives the turn on', async () => {
    const turns = new Turns();
    let running = 0;
    let most = 0;
    const calls = Array.from({ length: 20 }, (_, i) =>
      turns.run(async () => {
        running++;
        most = Math.max(most, running);
        await tick();
        running--;
        if (i % 3 === 0) throw new Error(`call ${i}`);
        return i;
      }),
    );
    const results = await Promise.allSettled(calls);
    assert.equal(most, 1);
    assert.equal(results.filter((r) => r.status === 'rejected').length, 7);
    assert.equal(await turns.run(async () => 'after'), 'after');
  });
});
