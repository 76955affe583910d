import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/rows';
import { bareTestDatabaseHooks } from '../../../test/bare-db';
import { seedTenant } from '../../../test/seed-db';
import { startExecution } from './service';
import { appendEvents, claimQueued, startedSeq, type ExecutionRow, type RunEvent, type SeqEvent } from './lifecycle';
import { recordedEvent } from './events';
import { eventJson, readEvents, readPiece } from './live';

// Deltas share rows of the log (packs.ts), on the real database (PGlite or PostgreSQL, as
// TEST_DB says): what is read back is every event on its own, with its own number and the same
// JSON text a stream of the run in place sends, from any position, a pack cut by a page or by
// the `below` bound of a window as if its events were rows.

const database = bareTestDatabaseHooks();
const db = () => database().db;

async function run(): Promise<ExecutionRow> {
  const t = await seedTenant(db(), 'Packs');
  await startExecution(db(), t, t.agentId, { input: 'packs' });
  const got = await claimQueued(db(), [{ tenant: t, count: 1 }], async () => null);
  return got!.rows[0]!;
}

/** Writes `events` after the run's `execution.started`, numbered on from it; their events as recorded. */
async function write(row: ExecutionRow, events: RunEvent[]): Promise<SeqEvent[]> {
  const numbered = events.map((e, i): SeqEvent => ({ seq: startedSeq(row) + 1 + i, ...e }));
  assert.equal(await appendEvents(db(), row.id, row.attempt, numbered, row.eventSeq + events.length), true);
  return numbered;
}

const delta = (text: string) => recordedEvent('text.delta', { step: 0, delta: text });
const rowsOf = async (id: string) => (await queryRows<{ seq: number; last_seq: number | null }>(db(), sql`select seq, last_seq from execution_events where execution_id = ${id} order by seq`)).map((r) => [r.seq, r.last_seq]);

describe('events in packs', () => {
  it('are read one by one from any position, with the text a stream sends', async () => {
    const row = await run();
    const s0 = startedSeq(row);
    const call = recordedEvent('tool.call', { toolCallId: 'c1', name: 'lookup', arguments: { q: 'x' }, step: 0 });
    const events = await write(row, [delta('Hel'), delta('lo'), delta(' "w"\n'), call, delta('é'), delta('🙂')]);
    assert.deepEqual(await rowsOf(row.id), [[s0, null], [s0 + 1, s0 + 3], [s0 + 4, null], [s0 + 5, s0 + 6]], 'two packs and the call alone');
    const all = await readEvents(db(), row.id, s0);
    assert.deepEqual(all.map((e) => [e.seq, e.type, e.json]), events.map((e) => [e.seq, e.type, eventJson(e)]));
    // Inside a pack, at its last event, and before a bound inside the next one.
    assert.deepEqual((await readEvents(db(), row.id, s0 + 2)).map((e) => e.seq), [s0 + 3, s0 + 4, s0 + 5, s0 + 6]);
    assert.deepEqual((await readEvents(db(), row.id, s0 + 3)).map((e) => e.seq), [s0 + 4, s0 + 5, s0 + 6]);
    assert.deepEqual((await readEvents(db(), row.id, s0 + 1, { below: s0 + 6 })).map((e) => e.seq), [s0 + 2, s0 + 3, s0 + 4, s0 + 5]);
    assert.deepEqual((await readEvents(db(), row.id, s0 + 6)).map((e) => e.seq), []);
    // One event of a pack, read as a piece (as a stream reads a large event).
    const second = all.find((e) => e.seq === s0 + 2)!;
    assert.equal(second.length, JSON.stringify(events[1]!.data).length);
    assert.equal(await readPiece(db(), row.id, s0 + 2, 0), JSON.stringify(events[1]!.data));
    assert.equal(await readPiece(db(), row.id, s0 + 6, 1), JSON.stringify(events[5]!.data).slice(1));
    assert.equal(await readPiece(db(), row.id, s0 + 7, 0), '', 'no such event');
  });

  it('a page ends inside a pack at its size, and the next read goes on from there', async () => {
    const row = await run();
    const s0 = startedSeq(row);
    // 3,000-character deltas, ten to a pack: a page (about 256 KB) ends inside the ninth pack.
    const events = await write(row, Array.from({ length: 120 }, (_, i) => delta(`${i}`.padEnd(3000, '.'))));
    const first = await readEvents(db(), row.id, s0);
    assert.ok(first.length > 80 && first.length < 120, `${first.length} events in the first page`);
    assert.deepEqual(first.map((e) => e.seq), events.slice(0, first.length).map((e) => e.seq));
    const rest = await readEvents(db(), row.id, first.at(-1)!.seq);
    assert.deepEqual(rest.map((e) => e.json), events.slice(first.length).map((e) => eventJson(e)));
  });
});
