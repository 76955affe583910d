import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startLoops, type LoopDef } from './loops';

// The background loops of a process: started in list order, stopped in reverse with each stop
// awaited (a loop mid-run finishes before the loop it feeds stops), a failed start stops those
// already started, and a stop that fails does not keep the others running.

function recorder() {
  const log: string[] = [];
  const loop = (name: string, opts: { stopMs?: number; failStart?: boolean; failStop?: boolean } = {}): LoopDef => ({
    name,
    start: async () => {
      if (opts.failStart) throw new Error(`${name} cannot start`);
      log.push(`start ${name}`);
      return async () => {
        log.push(`stopping ${name}`);
        if (opts.stopMs) await new Promise((r) => setTimeout(r, opts.stopMs));
        if (opts.failStop) throw new Error(`${name} cannot stop`);
        log.push(`stopped ${name}`);
      };
    },
  });
  return { log, loop };
}

describe('background loops', () => {
  it('start in list order and stop in reverse, each stop awaited before the next', async () => {
    const { log, loop } = recorder();
    const loops = await startLoops([loop('deliveries'), loop('relay'), loop('executions', { stopMs: 30 }), loop('ticker')]);
    assert.deepEqual(loops.names, ['deliveries', 'relay', 'executions', 'ticker']);
    await loops.stop();
    assert.deepEqual(log, [
      'start deliveries', 'start relay', 'start executions', 'start ticker',
      'stopping ticker', 'stopped ticker',
      // The relay stops only once the executions (mid-run, 30 ms to finish) have.
      'stopping executions', 'stopped executions',
      'stopping relay', 'stopped relay',
      'stopping deliveries', 'stopped deliveries',
    ]);
    await loops.stop();
    assert.equal(log.length, 12, 'a second stop stops nothing again');
  });

  it('a loop that cannot start stops the ones already started, and the error is thrown', async () => {
    const { log, loop } = recorder();
    await assert.rejects(startLoops([loop('a'), loop('b'), loop('c', { failStart: true }), loop('d')]), /c cannot start/);
    assert.deepEqual(log, ['start a', 'start b', 'stopping b', 'stopped b', 'stopping a', 'stopped a']);
  });

  it('a stop that fails does not keep the others running', async () => {
    const { log, loop } = recorder();
    const loops = await startLoops([loop('a'), loop('b', { failStop: true }), loop('c')]);
    await loops.stop();
    assert.deepEqual(log, ['start a', 'start b', 'start c', 'stopping c', 'stopped c', 'stopping b', 'stopping a', 'stopped a']);
  });
});
