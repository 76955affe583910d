// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Execution } from '../executions/helpers';
import { DB_KIND } from '../harness';
import { callProcess, seedTenant, startScaledOut, startWorker, stop, type Proc, type ScaledOut } from '../processes';
import { eventually } from '../eventually';

// Schedules on the scaled topology (docs/schedules.md): 2 web processes (RUN_WORKERS=false) and two
// worker processes on one PostgreSQL database. A schedule made on web A fires from the workers'
// own minute ticks — the two race for it — exactly once for the occurrence, and web B sees it; a
// run now on web B is run by a worker; deleting the agent on web B deletes the schedule for all;
// a turn queued on web B behind a run started on web A runs after it, and its wait answers then.
// The one test here that waits for a real minute boundary (the others inject the tick's clock).

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';

interface Schedule {
  id: string;
  nextRunAt: string;
  lastExecutionId: string | null;
}

describe('schedules and queued turns on 2 web + 2 worker processes', { skip }, () => {
  let scaled: ScaledOut;
  let a: Proc;
  let b: Proc;
  let worker: Proc;
  let second: Proc;
  let key: string;
  let agentId: string;
  /** The every-minute schedule, made in before() on web A. */
  let made: { status: number; body: Schedule };

  const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
  const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number) => eventually('the schedule’s run', read, done, { timeoutMs, everyMs: 50 });

  before(async () => {
    scaled = await startScaledOut({ REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
    ({ a, b, worker } = scaled);
    second = await startWorker(scaled.env);
    ({ key } = await seedTenant(scaled.database.db, { name: 'schedules' }));
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'scheduled', model: 'sandbox/echo' });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    agentId = agent.body.id;
    // Made first, so that the minute it waits for passes while the queued-turn test runs.
    made = await call<Schedule>(a, 'POST', '/v1/schedules', { agentId, cron: '* * * * *', input: 'every minute' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.ok(new Date(made.body.nextRunAt).getTime() > Date.now() - 1_000, 'the next run is the coming minute');
  });

  after(async () => {
    await Promise.all([stop(a), stop(b), stop(worker), stop(second)]);
    await scaled?.close();
  });

  it('a turn queued on web B behind a run started on web A runs after it in the worker; its wait on web B answers then', async () => {
    const slow = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'slow', model: 'sandbox/slow' });
    const first = await call<Execution>(a, 'POST', `/v1/agents/${slow.body.id}/execute`, { input: 'first one two three four five' });
    assert.equal(first.status, 202);
    const second = await call<Execution>(b, 'POST', `/v1/agents/${slow.body.id}/execute`, {
      input: 'second turn',
      conversationId: first.body.conversationId,
      ifBusy: 'enqueue',
      wait: true,
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.status, 'succeeded');
    assert.equal(second.body.output, 'Echo: second turn');
    const done = await call<Execution>(a, 'GET', `/v1/executions/${first.body.id}`);
    assert.equal(done.body.status, 'succeeded');
    assert.ok(second.body.startedAt! >= done.body.completedAt!);
  });

  it('a schedule made on web A fires once at its minute, with two workers ticking; web B sees the run', async () => {
    const occurrence = made.body.nextRunAt;
    const wait = new Date(occurrence).getTime() - Date.now();
    assert.ok(wait <= 60_000, `next run in ${wait} ms`);
    const runs = () => call<{ data: Execution[] }>(b, 'GET', `/v1/executions?scheduleId=${made.body.id}`).then((r) => r.body.data);
    const [run] = await until(runs, (data) => data.length > 0 && data[0]!.status === 'succeeded', Math.max(wait, 0) + 20_000);
    // Both workers ticked at the boundary: still one execution for the occurrence.
    await new Promise((r) => setTimeout(r, 1000));
    const all = await runs();
    assert.equal(all.length, 1, JSON.stringify(all.map((e) => e.trigger)));
    assert.deepEqual(run!.trigger, { type: 'schedule', scheduleId: made.body.id, scheduledFor: occurrence });
    assert.equal(run!.output, 'Echo: every minute');
    const after = await call<Schedule>(b, 'GET', `/v1/schedules/${made.body.id}`);
    assert.equal(after.body.lastExecutionId, run!.id);
    assert.equal(new Date(after.body.nextRunAt).getTime(), new Date(occurrence).getTime() + 60_000, 'nextRunAt moved to the next minute');
  });

  it('run now on web B is run by a worker; deleting the agent on web B deletes its schedules for every process', async () => {
    const made = await call<Schedule>(a, 'POST', '/v1/schedules', { agentId, cron: '0 0 1 1 *', input: 'now please' });
    const run = await call<Execution>(b, 'POST', `/v1/schedules/${made.body.id}/run`);
    assert.equal(run.status, 202, JSON.stringify(run.body));
    const done = await until(() => call<Execution>(a, 'GET', `/v1/executions/${run.body.id}`).then((r) => r.body), (e) => e.status === 'succeeded', 20_000);
    assert.equal(done.output, 'Echo: now please');
    assert.equal((await call(b, 'DELETE', `/v1/agents/${agentId}`)).status, 200);
    assert.equal((await call(a, 'GET', `/v1/schedules/${made.body.id}`)).status, 404);
    const [{ n }] = (await scaled.database.db.execute(sql`select count(*)::int as n from schedules`)) as unknown as [{ n: number }];
    assert.equal(n, 0);
  });
});
