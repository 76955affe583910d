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

  it('calls that answer at once (as PGlite does) still let the event loop come round every few ms', async () => {
    const turns = new Turns();
    // 200 requests arriving together, each making 3 calls of ~1 ms that settle as microtasks.
    const spin = async () => {
      const until = performance.now() + 1;
      while (performance.now() < until);
    };
    const t0 = performance.now();
    const loopSeen: number[] = [];
    const watch = setInterval(() => loopSeen.push(performance.now() - t0), 0);
    const requests = Array.from({ length: 200 }, (_, i) =>
      inLane(`addr:${i}`, async () => {
        nameLane('ws:A');
        for (let k = 0; k < 3; k++) await turns.run(spin);
      }),
    );
    await Promise.all(requests);
    const took = performance.now() - t0;
    clearInterval(watch);
    // Before: not one turn of the loop (no socket read, no timer) until all 600 ms had run.
    assert.ok(took > 500, `took ${took} ms`);
    const gaps = loopSeen.map((t, i) => t - (loopSeen[i - 1] ?? 0));
    assert.ok(loopSeen.length > 50, `the loop came round ${loopSeen.length} times`);
    assert.ok(Math.max(...gaps) < 100, `the longest gap was ${Math.max(...gaps)} ms`);
  });

  it("a request that has had a turn goes ahead of its line's requests that have not", async () => {
    const turns = new Turns();
    const order: string[] = [];
    const call = (name: string) => () => {
      order.push(name);
      return tick();
    };
    // Something holds the turn; then three requests of one workspace arrive, each making two calls.
    const hold = turns.run(call('hold'));
    const requests = ['r1', 'r2', 'r3'].map((r) =>
      inLane(`addr:${r}`, async () => {
        nameLane('ws:A');
        await turns.run(call(`${r}.1`));
        await turns.run(call(`${r}.2`));
      }),
    );
    await Promise.all([hold, ...requests]);
    // r1's second call goes before r2's and r3's first: a request in progress finishes first.
    assert.deepEqual(order, ['hold', 'r1.1', 'r1.2', 'r2.1', 'r2.2', 'r3.1', 'r3.2']);
  });
});
