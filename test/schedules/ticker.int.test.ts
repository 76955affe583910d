import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { schedules } from '../../db/schema';
import type { tick as Tick } from '../../server/modules/schedules/ticker';
import { nextOccurrence } from '../../server/modules/schedules/timing';
import { expectStatus } from '../expect';
import { createAgent, waitFor } from '../executions/helpers';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';

// Firing schedules (docs/schedules.md): the tick's clock is injected, so minutes pass in moments.
// Two ticks at once race for real on PostgreSQL (two pooled connections, FOR UPDATE SKIP LOCKED);
// on PGlite they take turns on its one connection. Either way: one execution per occurrence.

let api: TestServer;
let owner: SeededKey;
let agentId: string;
// Server modules load after startServer has set the environment (test/harness.ts).
let tick: typeof Tick;
let newId: typeof import('../../server/platform/ids').newId;

before(async () => {
  api = await startServer();
  ({ tick } = await import('../../server/modules/schedules/ticker'));
  ({ newId } = await import('../../server/platform/ids'));
  owner = await api.seed.key({ ...UNLIMITED });
  agentId = await createAgent(api, owner.key, { instructions: 'Be brief.' });
});
after(() => api?.close());

const BASE = new Date('2030-01-07T09:00:00.000Z');
const at = (minutes: number, seconds = 0) => new Date(BASE.getTime() + minutes * 60_000 + seconds * 1000);

async function schedule(o: { cron: string; timezone?: string; overlap?: 'skip' | 'enqueue'; endAt?: Date; agent?: string; createdAt?: Date }): Promise<string> {
  const id = newId('sch');
  const timezone = o.timezone ?? 'UTC';
  await api.db.insert(schedules).values({
    id,
    workspaceId: owner.workspace.id,
    environment: owner.environment,
    agentId: o.agent ?? agentId,
    cron: o.cron,
    timezone,
    input: 'scheduled hello',
    overlap: o.overlap ?? 'enqueue',
    endAt: o.endAt ?? null,
    nextRunAt: nextOccurrence(o.cron, timezone, o.createdAt ?? BASE),
  });
  return id;
}

async function runsOf(scheduleId: string): Promise<{ id: string; scheduledFor: string; status: string }[]> {
  // A plain array (postgres.js answers an array of its own class).
  return [
    ...(await api.query<{ id: string; scheduledFor: string; status: string }>(
      sql`select id, trigger->>'scheduledFor' as "scheduledFor", status from executions where schedule_id = ${scheduleId} order by trigger->>'scheduledFor', id`,
    )),
  ];
}

const row = async (id: string) => (await api.db.select().from(schedules).where(eq(schedules.id, id)))[0]!;

describe('schedule ticks', () => {
  it('every minute for 10 minutes, two ticks racing each minute: exactly one execution per occurrence', async () => {
    const id = await schedule({ cron: '* * * * *' });
    for (let m = 1; m <= 10; m++) {
      const results = await Promise.all([tick(api.db, at(m, 1)), tick(api.db, at(m, 1))]);
      assert.equal(results.reduce((n, r) => n + r.fired, 0), 1, `minute ${m}: ${JSON.stringify(results)}`);
    }
    const runs = await runsOf(id);
    assert.deepEqual(
      runs.map((r) => r.scheduledFor),
      Array.from({ length: 10 }, (_, i) => at(i + 1).toISOString()),
    );
    const s = await row(id);
    assert.equal(s.nextRunAt?.toISOString(), at(11).toISOString(), 'nextRunAt is the next occurrence');
    assert.equal(s.lastRunAt?.toISOString(), at(10).toISOString());
    assert.equal(s.lastExecutionId, runs.at(-1)!.id);
    // The executions say what started them, and the API lists them by schedule.
    const listed = await api.request<{ data: { trigger: unknown }[] }>('GET', `/v1/executions?scheduleId=${id}&limit=1`, { key: owner.key });
    assert.deepEqual(listed.body.data[0]!.trigger, { type: 'schedule', scheduleId: id, scheduledFor: at(10).toISOString() });
  });

  it('a tick before the occurrence fires nothing', async () => {
    const id = await schedule({ cron: '30 9 * * *' });
    await tick(api.db, at(29, 59));
    assert.deepEqual(await runsOf(id), []);
    assert.equal((await row(id)).nextRunAt?.toISOString(), at(30).toISOString());
    await tick(api.db, at(30));
    assert.equal((await runsOf(id)).length, 1);
  });

  it('after downtime: one catch-up run for the latest missed occurrence under an hour old, then the next one after now', async () => {
    const id = await schedule({ cron: '*/10 * * * *' });
    // Nothing ticked from 09:00 to 09:35: 09:10, 09:20, 09:30 were missed; one run, for 09:30.
    await tick(api.db, at(35));
    assert.deepEqual((await runsOf(id)).map((r) => r.scheduledFor), [at(30).toISOString()]);
    assert.equal((await row(id)).nextRunAt?.toISOString(), at(40).toISOString());
    // A daily schedule missed by more than an hour: no run, tomorrow's next.
    const daily = await schedule({ cron: '5 9 * * *' });
    await tick(api.db, at(5 + 61));
    assert.deepEqual(await runsOf(daily), []);
    assert.equal((await row(daily)).nextRunAt?.toISOString(), new Date(at(5).getTime() + 86_400_000).toISOString());
  });

  it('overlap skip: an occurrence whose previous run is still active creates nothing', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const id = await schedule({ cron: '* * * * *', overlap: 'skip', agent: slow });
    await tick(api.db, at(1));
    const [first] = await runsOf(id);
    // Held active: the next occurrence finds it queued or running.
    await api.query(sql`update executions set status = 'running', started_at = now(), heartbeat_at = now(), attempt = attempt + 1 where id = ${first!.id} and status = 'queued'`);
    const { fired, skipped } = await tick(api.db, at(2));
    assert.deepEqual({ fired, skipped }, { fired: 0, skipped: 1 });
    assert.equal((await runsOf(id)).length, 1);
    assert.equal((await row(id)).nextRunAt?.toISOString(), at(3).toISOString(), 'moves on all the same');
  });

  it('overlap enqueue: an occurrence whose previous run is active waits its turn, then runs after it (in its own conversation)', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const id = await schedule({ cron: '* * * * *', overlap: 'enqueue', agent: slow });
    await tick(api.db, at(1));
    const [first] = await runsOf(id);
    // Held running by the test: a worker that claimed it already (its run lasts ~0.6 s) is fenced
    // out by the new attempt, so the run stays active until the test cancels it.
    const [held] = await api.query<{ id: string }>(
      sql`update executions set status = 'running', started_at = now(), heartbeat_at = now(), attempt = attempt + 1 where id = ${first!.id} and status in ('queued', 'running') returning id`,
    );
    assert.ok(held, 'the first run was still active when the test took it');
    // Counted on this schedule's own runs: a tick fires every schedule due, and the skip test's
    // schedule (next at 09:03) fires here too once its run has really ended (a worker may have
    // claimed and finished it before that test held it running).
    await tick(api.db, at(2));
    assert.equal((await runsOf(id)).length, 2);
    await tick(api.db, at(3));
    assert.equal((await runsOf(id)).length, 3);
    const waiting = await api.query<{ id: string; waiting_turn: number | null }>(
      sql`select id, waiting_turn from executions where schedule_id = ${id} and id <> ${first!.id} order by waiting_turn`,
    );
    assert.deepEqual([...waiting].map((w) => w.waiting_turn), [1, 2], 'two turns wait, in order');
    // The first run ends: the second occurrence's run may start, the third still waits.
    expectStatus(await api.request('POST', `/v1/executions/${first!.id}/cancel`, { key: owner.key }), 200);
    const [second, third] = [...waiting].map((w) => w.id) as [string, string];
    const ran = await waitFor(api, owner.key, second, (e) => e.status !== 'queued');
    assert.notEqual(ran.status, 'cancelled');
    const done = await waitFor(api, owner.key, third, undefined, 20_000);
    assert.equal(done.status, 'succeeded');
    const secondDone = await waitFor(api, owner.key, second);
    assert.ok(done.startedAt! >= secondDone.completedAt!, 'the third ran after the second');
    assert.notEqual(done.conversationId, secondDone.conversationId);
  });

  it('past endAt a schedule fires no more and is disabled', async () => {
    const id = await schedule({ cron: '* * * * *', endAt: at(2, 30) });
    for (const m of [1, 2, 3, 4]) await tick(api.db, at(m));
    assert.deepEqual((await runsOf(id)).map((r) => r.scheduledFor), [at(1).toISOString(), at(2).toISOString()]);
    const s = await row(id);
    assert.equal(s.enabled, false);
    assert.equal(s.nextRunAt, null);
  });

  it('a schedule whose next run after a run is more than a year away ends like one past its endAt, with schedule.updated', async () => {
    // 29 February 2032 runs; the next is 2036, beyond the horizon of a search (docs/schedules.md).
    const id = await schedule({ cron: '0 9 29 2 *', createdAt: new Date('2032-02-28T00:00:00Z') });
    assert.equal((await row(id)).nextRunAt?.toISOString(), '2032-02-29T09:00:00.000Z');
    await tick(api.db, new Date('2032-02-29T09:00:00.010Z'));
    assert.deepEqual((await runsOf(id)).map((r) => r.scheduledFor), ['2032-02-29T09:00:00.000Z']);
    const s = await row(id);
    assert.equal(s.enabled, false);
    assert.equal(s.nextRunAt, null);
    const [event] = await api.query<{ type: string }>(sql`select type from events where object->>'id' = ${id} order by id desc limit 1`);
    assert.equal(event?.type, 'schedule.updated');
  });

  it('a schedule whose cron cannot be read (changed by hand) is disabled alone; the others still fire', async () => {
    const broken = await schedule({ cron: '* * * * *' });
    const fine = await schedule({ cron: '* * * * *' });
    await api.query(sql`update schedules set timezone = 'Mars/Olympus_Mons' where id = ${broken}`);
    await tick(api.db, at(1));
    const b = await row(broken);
    assert.deepEqual({ enabled: b.enabled, nextRunAt: b.nextRunAt }, { enabled: false, nextRunAt: null });
    assert.deepEqual(await runsOf(broken), []);
    assert.equal((await runsOf(fine)).length, 1);
  });

  it('a schedule whose agent is gone creates nothing and keeps the tick whole', async () => {
    const doomed = await createAgent(api, owner.key);
    const gone = await schedule({ cron: '* * * * *', agent: doomed });
    const fine = await schedule({ cron: '* * * * *' });
    // Deleting an agent through the API deletes its schedules (schedules-api.int.test.ts): this is a row changed by hand.
    await api.query(sql`update agents set deleted_at = now() where id = ${doomed}`);
    const result = await tick(api.db, at(1));
    assert.ok(result.skipped >= 1);
    assert.deepEqual(await runsOf(gone), []);
    assert.equal((await runsOf(fine)).length, 1, 'the other schedule of the same tick fired');
  });
});
