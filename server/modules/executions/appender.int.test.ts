import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { bareTestDatabase } from '../../../test/harness';
import { seedTenant } from '../../../test/seed-db';
import { until } from '../../../test/eventually';
import { CHANNELS, openBus, type Bus } from '../../platform/notify';
import { startExecution } from './service';
import { claimQueued, startedSeq, type ExecutionRow } from './lifecycle';
import { appendBatched } from './appender';
import { recordedEvent } from './events';
import { eventJson, PAGE, readEventsOf } from './live';
import { storedEvents } from './packs';

// The runs of a process write their events in one statement (appender.ts), on the real database
// (PGlite or PostgreSQL, as TEST_DB says): each run's events, reservation and signal as if it
// wrote alone; a run its worker no longer owns writes nothing and is told so; a write that fails
// fails that run alone.

let database: Database;
let cleanup: () => Promise<void>;
let bus: Bus;
const signals: string[] = [];
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
  bus = await openBus(database);
  bus.subscribe(CHANNELS.executionEvents, (s) => signals.push(`${s.id}:${s.seq}`));
});
after(async () => {
  await bus?.close();
  await cleanup?.();
});

const db = () => database.db;

async function running(count: number): Promise<ExecutionRow[]> {
  const t = await seedTenant(db(), 'Appender');
  for (let i = 0; i < count; i++) await startExecution(db(), t, t.agentId, { input: `run ${i}` });
  const got = await claimQueued(db(), [{ tenant: t, count }], async () => null);
  return got!.rows;
}

const deltas = (row: ExecutionRow, n: number) => Array.from({ length: n }, (_, i) => ({ seq: startedSeq(row) + 1 + i, ...recordedEvent('text.delta', { step: 0, delta: `t${i}` }) }));
/** The run's stored events, one by one (packs expanded, packs.ts). */
const stored = async (id: string) => (await queryRows<{ seq: number; type: string }>(db(), sql`select seq, type from (${storedEvents(sql`${id}`, sql`0`, sql`2147483647`)}) e order by seq`)).map((e) => `${e.seq} ${e.type}`);
const reserved = async (id: string) => (await queryRows<{ event_seq: number }>(db(), sql`select event_seq from executions where id = ${id}`))[0]!.event_seq;

describe('events of several runs written together', () => {
  it('writes each run’s events, moves each reservation and signals each run; a run no longer owned writes nothing', async () => {
    const [a, b, c] = await running(3);
    const ask = (row: ExecutionRow, n: number, attempt = row.attempt) =>
      appendBatched(db(), { id: row.id, attempt, events: deltas(row, n), reserveTo: row.eventSeq + 50, parts: [], written: startedSeq(row) });
    const ofC = () => signals.filter((x) => x.startsWith(`${c!.id}:`)).length;
    // The claim's `execution.started` signals arrive on their own time: counted once they have.
    await until('the started signals', () => [a!, b!, c!].every((r) => signals.includes(`${r.id}:${startedSeq(r)}`)));
    const cBefore = ofC();
    // Asked in the same turn: one statement (a lost run among them).
    const owned = await Promise.all([ask(a!, 2), ask(b!, 3), ask(c!, 1, c!.attempt + 1)]);
    assert.deepEqual(owned, [true, true, false]);
    const s = (row: ExecutionRow, i: number) => `${startedSeq(row) + i} text.delta`;
    assert.deepEqual(await stored(a!.id), [`${startedSeq(a!)} execution.started`, s(a!, 1), s(a!, 2)]);
    assert.deepEqual(await stored(b!.id), [`${startedSeq(b!)} execution.started`, s(b!, 1), s(b!, 2), s(b!, 3)]);
    assert.deepEqual(await stored(c!.id), [`${startedSeq(c!)} execution.started`], 'the lost run wrote nothing');
    assert.equal(await reserved(a!.id), a!.eventSeq + 50);
    assert.equal(await reserved(c!.id), c!.eventSeq, 'nor moved its reservation');
    await until('the signals', () => signals.includes(`${a!.id}:${startedSeq(a!) + 2}`) && signals.includes(`${b!.id}:${startedSeq(b!) + 3}`));
    assert.equal(ofC(), cBefore, 'no signal for the lost run');
    // No events (a reader asked for the run's write): the signal names the last one written.
    assert.equal(await appendBatched(db(), { id: a!.id, attempt: a!.attempt, events: [], reserveTo: 0, parts: [], written: startedSeq(a!) + 2 }), true);
    await until('the empty write’s signal', () => signals.filter((x) => x === `${a!.id}:${startedSeq(a!) + 2}`).length === 2);
  });

  it('a write that fails fails its own run alone: the others in its statement are written', async () => {
    const [a, b] = await running(2);
    // A participant's part that cannot be written (its key is taken: the started event's).
    const bad = { writes: [sql`insert into execution_events (execution_id, seq, type, data) values (${b!.id}, ${startedSeq(b!)}, 'x', '{}')`] };
    const [good, failed] = await Promise.allSettled([
      appendBatched(db(), { id: a!.id, attempt: a!.attempt, events: deltas(a!, 1), reserveTo: a!.eventSeq, parts: [], written: startedSeq(a!) }),
      appendBatched(db(), { id: b!.id, attempt: b!.attempt, events: deltas(b!, 1), reserveTo: b!.eventSeq, parts: [bad], written: startedSeq(b!) }),
    ]);
    assert.deepEqual(good, { status: 'fulfilled', value: true });
    assert.equal(failed.status, 'rejected');
    assert.deepEqual(await stored(a!.id), [`${startedSeq(a!)} execution.started`, `${startedSeq(a!) + 1} text.delta`]);
    assert.deepEqual(await stored(b!.id), [`${startedSeq(b!)} execution.started`], 'nothing of the failed write');
  });

  it('a small write waits for one statement at most, not for every large one asked before it', async () => {
    const rows = await running(5);
    const small = rows.at(-1)!;
    const done: string[] = [];
    // Four runs write 600 KB each (3 events of 200 KB), then one run writes one small event, all in one turn.
    const big = 'x'.repeat(200 * 1024);
    const write = (row: ExecutionRow, delta: string, n: number) =>
      appendBatched(
        db(),
        { id: row.id, attempt: row.attempt, events: Array.from({ length: n }, (_, i) => ({ seq: startedSeq(row) + 1 + i, ...recordedEvent('text.delta', { step: 0, delta }) })), reserveTo: row.eventSeq + n, parts: [], written: startedSeq(row) },
        n * (delta.length + 64),
      ).then((owned) => (done.push(row === small ? 'small' : 'large'), owned));
    const owned = await Promise.all([...rows.slice(0, 4).map((r) => write(r, big, 3)), write(small, 'hi', 1)]);
    assert.deepEqual(owned, [true, true, true, true, true]);
    assert.deepEqual(done, ['large', 'small', 'large', 'large', 'large'], 'the small write went in the first statement, with the oldest large one');
    for (const r of rows.slice(0, 4)) assert.equal((await stored(r.id)).length, 4, 'every large write is written');
  });
});

describe('events of several runs read together (live.ts readEventsOf)', () => {
  it('reads each run’s events after its own position, each page bounded as if read alone', async () => {
    const [a, b, c] = await running(3);
    const write = (row: ExecutionRow, n: number) => appendBatched(db(), { id: row.id, attempt: row.attempt, events: deltas(row, n), reserveTo: row.eventSeq + n, parts: [], written: startedSeq(row) });
    assert.deepEqual(await Promise.all([write(a!, 3), write(b!, PAGE + 2), write(c!, 1)]), [true, true, true]);
    const rows = await readEventsOf(db(), [
      { id: a!.id, after: startedSeq(a!) + 1 },
      { id: b!.id, after: startedSeq(b!) },
      { id: c!.id, after: startedSeq(c!) + 1 },
    ]);
    const of = (row: ExecutionRow) => rows.filter((r) => r.executionId === row.id);
    assert.deepEqual(of(a!).map((r) => r.seq), [startedSeq(a!) + 2, startedSeq(a!) + 3]);
    assert.equal(of(a!)[0]!.json, eventJson(recordedEvent('text.delta', { step: 0, delta: 't1' })), 'the same text a stream of the run in place sends');
    assert.equal(of(b!).length, PAGE, 'a page at most');
    assert.deepEqual(of(b!).slice(0, 2).map((r) => r.seq), [startedSeq(b!) + 1, startedSeq(b!) + 2]);
    assert.deepEqual(of(c!), [], 'nothing after its position');
  });
});
