import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { bareTestDatabase } from '../../test/harness';
import { CHANNELS, notify, notifyCall, openBus, type Bus, type Channel } from './notify';

// The bus on the real database (PGlite or PostgreSQL, as TEST_DB says): a subscriber gets typed
// payloads, sent as a statement of their own or computed in SQL; a payload that does not read is
// dropped (and logged), the other subscribers still get theirs; nothing arrives for a rollback.

let database: Database;
let cleanup: () => Promise<void>;
let bus: Bus;
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
  bus = await openBus(database);
});
after(async () => {
  await bus?.close();
  await cleanup?.();
});

/** Collects what a channel delivers until `n` arrived (or 5 s passed). */
function collect<T>(channel: Channel<T>, n: number) {
  const got: T[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const off = bus.subscribe(channel, (p) => {
    got.push(p);
    if (got.length >= n) done();
  });
  const timer = setTimeout(done, 5_000);
  return all.then(() => (off(), clearTimeout(timer), got));
}

describe('the notification bus', () => {
  it('delivers typed payloads, written in JS or computed in SQL', async () => {
    const events = collect(CHANNELS.executionEvents, 3);
    const work = collect(CHANNELS.work, 2);
    await database.db.execute(notify(CHANNELS.executionEvents, { id: 'exe_a', seq: 1, final: false }));
    await database.db.execute(sql`select ${notifyCall(CHANNELS.executionEvents, sql`${'exe_b'} || ':' || ${41}::int + 1`)}`);
    await database.db.execute(notify(CHANNELS.executionEvents, { id: 'exe_a', seq: 9, final: true }));
    await database.db.execute(sql`select ${notifyCall(CHANNELS.work, 'executions')} from generate_series(1, 1)`);
    await database.db.execute(notify(CHANNELS.work, 'webhooks'));
    assert.deepEqual(await events, [
      { id: 'exe_a', seq: 1, final: false },
      { id: 'exe_b', seq: 42, final: false },
      { id: 'exe_a', seq: 9, final: true },
    ]);
    assert.deepEqual(await work, ['executions', 'webhooks']);
  });

  it('drops a payload that does not read, and the next one still arrives', async () => {
    const cancels = collect(CHANNELS.cancel, 1);
    // What an old or foreign sender might write on the channel.
    await database.db.execute(sql`select pg_notify(${CHANNELS.cancel.name}, ${'exe_1:not-an-id'})`);
    await database.db.execute(notify(CHANNELS.cancel, 'exe_2'));
    assert.deepEqual(await cancels, ['exe_2']);
  });

  it('sends nothing for a transaction that rolled back', async () => {
    const follows = collect(CHANNELS.follow, 1);
    await assert.rejects(
      database.db.transaction(async (tx) => {
        await tx.execute(notify(CHANNELS.follow, 'exe_rolled_back'));
        throw new Error('roll back');
      }),
    );
    await database.db.execute(notify(CHANNELS.follow, 'exe_committed'));
    assert.deepEqual(await follows, ['exe_committed']);
  });
});
