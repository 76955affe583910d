import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { bareTestDatabase } from '../../../test/harness';
import { seedTenant } from '../../../test/seed-db';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { openBus, type Bus } from '../../platform/notify';
import { createEngine, enqueueOccurrence, type Engine, type Occurrence } from './engine';
import { Live } from './live';
import { cancel } from './lifecycle';

// The engine's face on the real database (PGlite or PostgreSQL, as TEST_DB says), with no worker
// pool: a start is queued, a cancel, a wait and a follow go through the face, and a schedule's
// occurrence follows its overlap rule (skip, a queued turn in the schedule's line, the line full).

let database: Database;
let cleanup: () => Promise<void>;
let bus: Bus;
let live: Live;
let engine: Engine;
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
  bus = await openBus(database);
  live = new Live(database.db, bus);
  engine = createEngine({ db: database.db, live, pool: () => undefined });
});
after(async () => {
  live?.close();
  await bus?.close();
  await cleanup?.();
});

describe('the engine', () => {
  it('queues a start when this process runs no workers, even asked in place; cancel and wait go through it', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const watch = engine.watch('exe_not_yet');
    watch.close();
    const run = await engine.start(t, t.agentId, { input: 'hello' }, { inPlace: true });
    assert.equal(run.row.status, 'queued');
    assert.equal(run.running, null);
    const waited = engine.wait(run.row.id, { timeoutMs: 5_000 });
    const cancelled = await engine.cancel(t, run.row.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await waited).status, 'cancelled');
    await assert.rejects(engine.cancel(t, run.row.id), (err: ApiError) => err.code === 'execution_not_cancellable');
    await assert.rejects(engine.cancel({ workspaceId: newId('ws'), environment: 'live' }, run.row.id), (err: ApiError) => err.code === 'resource_not_found');
  });

  it('stops a wait when its signal aborts, leaving the run as it is', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const run = await engine.start(t, t.agentId, { input: 'hello' }, { inPlace: false });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    const row = await engine.wait(run.row.id, { timeoutMs: 60_000, signal: controller.signal });
    assert.equal(row.status, 'queued');
    assert.ok(Date.now() - started < 5_000);
    await cancel(database.db, run.row.id);
  });
});

describe('following', () => {
  const collect = async (events: AsyncIterable<{ seq: number; type: string; json: string | null }>) => {
    const out = [];
    for await (const e of events) out.push(e);
    return out;
  };

  it('yields a run’s events as they are signalled, ends after the terminal one, and replays a finished run', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const run = await engine.start(t, t.agentId, { input: 'hello' }, { inPlace: false });
    const following = collect(engine.follow({ executionId: run.row.id, afterSeq: 0, signal: new AbortController().signal }));
    await engine.cancel(t, run.row.id);
    const events = await following;
    assert.deepEqual(events.map((e) => e.type), ['execution.cancelled']);
    const cancelled = JSON.parse(events[0]!.json!) as { type: string; execution: { id: string; status: string } };
    assert.equal(cancelled.type, 'execution.cancelled');
    assert.deepEqual([cancelled.execution.id, cancelled.execution.status], [run.row.id, 'cancelled']);
    const replayed = await collect(engine.follow({ executionId: run.row.id, afterSeq: 0, signal: new AbortController().signal, final: true }));
    assert.deepEqual(replayed, events);
    assert.deepEqual(await collect(engine.follow({ executionId: run.row.id, afterSeq: events[0]!.seq, signal: new AbortController().signal, final: true })), []);
    assert.equal(live.has(run.row.id), false, 'the tail is released');
  });

  it('ends when its signal aborts, the run going on', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const run = await engine.start(t, t.agentId, { input: 'hello' }, { inPlace: false });
    const controller = new AbortController();
    const following = collect(engine.follow({ executionId: run.row.id, afterSeq: 0, signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    assert.deepEqual(await following, []);
    assert.equal(live.has(run.row.id), false, 'the tail is released');
    assert.equal((await engine.wait(run.row.id, { timeoutMs: 0 })).status, 'queued');
    await cancel(database.db, run.row.id);
  });
});

describe('a schedule’s occurrence', () => {
  const occurrence = (t: { workspaceId: string; agentId: string }, scheduleId: string, overlap: Occurrence['overlap']): Occurrence => ({
    scheduleId,
    workspaceId: t.workspaceId,
    environment: 'live',
    agentId: t.agentId,
    overlap,
    conversationId: null,
    keyId: null,
    input: { input: 'tick' },
    trigger: { type: 'schedule', scheduleId, scheduledFor: new Date().toISOString() },
  });
  const fire = (o: Occurrence) => database.db.transaction((tx) => enqueueOccurrence(tx, o));

  it('with overlap skip, creates nothing while the last run is active', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const o = occurrence(t, newId('sch'), 'skip');
    const first = await fire(o);
    assert.ok('executionId' in first);
    assert.deepEqual(await fire(o), { skipped: 'active' });
    await cancel(database.db, first.executionId);
    assert.ok('executionId' in (await fire(o)));
  });

  it('with overlap enqueue, queues turns in the schedule’s line, at most 10, then skips', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const o = occurrence(t, newId('sch'), 'enqueue');
    const results = [];
    for (let i = 0; i < 12; i++) results.push(await fire(o));
    assert.ok(results.slice(0, 11).every((r) => 'executionId' in r));
    assert.deepEqual(results[11], { skipped: 'line_full' });
    const turns = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from executions where schedule_id = ${o.scheduleId} and waiting_turn is not null`);
    assert.equal(turns[0]!.n, 10);
  });

  it('for an agent that is gone, creates nothing and says why', async () => {
    const t = await seedTenant(database.db, 'Engine');
    const o = { ...occurrence(t, newId('sch'), 'skip'), agentId: newId('agt') };
    assert.deepEqual(await fire(o), { skipped: 'resource_not_found' });
  });
});
