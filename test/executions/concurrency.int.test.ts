import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { expectStatus } from '../expect';
import { DB_KIND, startServer, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, waitFor, type Execution } from './helpers';
import { until } from '../eventually';

// How many executions run at once (docs/concurrency.md): each workspace at most its plan's
// number per environment (starter 5, professional 25, enterprise 100 or its own), the rest
// queued in order; a process at most EXECUTION_CONCURRENCY; and a workspace with a backlog
// never holds back another workspace's next run by more than one slot's turnover.

let api: TestServer;
/** Slots of this process: few, so a test can fill them. */
const SLOTS = 6;
/** Words of input: `sandbox/slow` streams one every 200 ms, so a run lasts until cancelled. */
const LONG = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');

before(async () => {
  api = await startServer({ env: { EXECUTION_CONCURRENCY: String(SLOTS) } });
});
after(() => api?.close());

const statuses = async (ids: string[]) => {
  const rows = await api.query<{ id: string; status: string }>(sql`select id, status from executions where id in ${ids}`);
  return new Map(rows.map((r) => [r.id, r.status]));
};
const cancel = (k: SeededKey, id: string) => api.request('POST', `/v1/executions/${id}/cancel`, { key: k.key });
const cancelAll = (k: SeededKey, ids: string[]) => Promise.all(ids.map((id) => cancel(k, id)));

async function queue(k: SeededKey, agentId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  // One after the other: the queue's order is the order they were made in.
  for (let i = 0; i < n; i++) {
    const res = await execute(api, k.key, agentId, { input: `${i} ${LONG}` });
    expectStatus(res, 202);
    ids.push(res.body.id);
  }
  return ids;
}

describe('per-workspace concurrency', () => {
  it('a starter workspace runs 5 at once; the rest wait queued and start in order as slots free', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    const agentId = await createAgent(api, k.key, { model: 'sandbox/slow' });
    const ids = await queue(k, agentId, 8);
    await until('5 running', async () => [...(await statuses(ids)).values()].filter((s) => s === 'running').length === 5);
    // Held there: more slots of the process are free, but the plan allows 5. Nothing happening has
    // no event to wait for: give a claim pass time to (wrongly) start one.
    await new Promise((r) => setTimeout(r, 300));
    let now = await statuses(ids);
    assert.deepEqual(ids.map((id) => now.get(id)), ['running', 'running', 'running', 'running', 'running', 'queued', 'queued', 'queued']);
    expectStatus(await cancel(k, ids[1]!), 200);
    await until('the oldest queued run takes the freed place', async () => (await statuses(ids)).get(ids[5]!) === 'running');
    now = await statuses(ids);
    assert.deepEqual([now.get(ids[6]!), now.get(ids[7]!)], ['queued', 'queued']);
    await cancelAll(k, ids);
  });

  it('a wait or stream that would run in place waits its turn too when the workspace is full', async () => {
    // Enterprise with its own limit (`admin set-plan --concurrency 2`).
    const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000, customConcurrency: 2 });
    const slow = await createAgent(api, k.key, { model: 'sandbox/slow' });
    const fast = await createAgent(api, k.key);
    const busy = await queue(k, slow, 2);
    await until('2 running', async () => [...(await statuses(busy)).values()].every((s) => s === 'running'));
    let answered = false;
    const waiting = execute(api, k.key, fast, { input: 'my turn?', wait: true }).then((res) => {
      answered = true;
      return res;
    });
    // An answer that must not come has no event to wait for: half a second to (wrongly) arrive.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(answered, false, 'no slot of the workspace was free');
    const queued = await api.query<{ id: string; status: string }>(
      sql`select id, status from executions where workspace_id = ${k.workspace.id} and agent_id = ${fast}`,
    );
    assert.deepEqual(queued.map((q) => q.status), ['queued']);
    expectStatus(await cancel(k, busy[0]!), 200);
    const res = await waiting;
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded');
    assert.ok(res.body.startedAt! > res.body.createdAt, 'it waited for a slot of its workspace');
    await cancelAll(k, busy);
  });

  it('two runs in place racing for the last slot: one runs, the other waits queued for it (the check under the lock)', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only: the decision is read without the lock there' }, async () => {
    const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000, customConcurrency: 1 });
    const slow = await createAgent(api, k.key, { model: 'sandbox/slow' });
    // Both read "a slot is free" before either holds the tenant's lock: the test holds it meanwhile.
    const runs = await api.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`aas.exec:${k.workspace.id}:test`}, 0))`);
      const started = [execute(api, k.key, slow, { input: 'one two', wait: true }), execute(api, k.key, slow, { input: 'three four', wait: true })];
      await until('both starts wait for the lock', async () => {
        const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'advisory'`);
        return row!.n === 2;
      });
      return started;
    });
    const [a, b] = await Promise.all(runs);
    for (const res of [a!, b!]) {
      expectStatus(res, 200);
      assert.equal(res.body.status, 'succeeded');
    }
    const [first, second] = [a!.body, b!.body].sort((x, y) => x.startedAt!.localeCompare(y.startedAt!));
    assert.ok(second!.startedAt! >= first!.completedAt!, 'never two running at once: the second waited for the slot');
  });

  it("a worker claims a queued run while every connection of its pool is busy (the claims' own connection)", { skip: DB_KIND !== 'postgres' && 'PostgreSQL only: PGlite has one connection, shared in lines' }, async () => {
    const k = await api.seed.key({ plan: 'starter' });
    const agentId = await createAgent(api, k.key, { model: 'sandbox/slow' });
    const ids = await queue(k, agentId, 6);
    await until('5 running, the 6th queued', async () => (await statuses(ids)).get(ids[4]!) === 'running');
    assert.equal((await statuses(ids)).get(ids[5]!), 'queued');
    // The test's own connection: the server's pool is about to be busy.
    const own = postgres(api.runtime.database.url!, { max: 1, onnotice: () => {} });
    try {
      const status = async () => String((await own`select status from executions where id = ${ids[5]!}`)[0]!.status);
      // Every pooled connection of the server busy for 3 s.
      const busy = Promise.all(Array.from({ length: 10 }, () => api.runtime.database.sql!`select pg_sleep(3)`));
      await new Promise((r) => setTimeout(r, 200));
      // Room for the queued run (a larger plan), and the signal a freed slot sends.
      await own`update workspaces set plan = 'professional' where id = ${k.workspace.id}`;
      await own`select pg_notify('aas_jobs', 'executions')`;
      const t0 = Date.now();
      while ((await status()) !== 'running' && Date.now() - t0 < 2_500) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await status(), 'running', 'claimed while the pool was still busy');
      await busy;
    } finally {
      await own.end({ timeout: 5 });
    }
    await cancelAll(k, ids);
  });

  it('the limit is per environment: test and live each have their own', async () => {
    const live = await api.seed.key({ plan: 'enterprise', customRpm: 100_000, customConcurrency: 1, environment: 'live' });
    const test = await api.seed.key({ workspace: live.workspace, environment: 'test' });
    const [a, b] = await Promise.all([createAgent(api, live.key, { model: 'sandbox/slow' }), createAgent(api, test.key, { model: 'sandbox/slow' })]);
    const [x] = await queue(live, a, 1);
    const [y] = await queue(test, b, 1);
    await until('one running in each environment', async () => [...(await statuses([x!, y!])).values()].every((s) => s === 'running'));
    await Promise.all([cancel(live, x!), cancel(test, y!)]);
  });
});

describe('fairness between workspaces', () => {
  it("a workspace with a backlog holds back another's next run by one slot's turnover at most", async () => {
    const a = await api.seed.key({ plan: 'enterprise', customRpm: 100_000 });
    const b = await api.seed.key({ plan: 'enterprise', customRpm: 100_000 });
    const agentA = await createAgent(api, a.key, { model: 'sandbox/slow' });
    const agentB = await createAgent(api, b.key, { model: 'sandbox/slow' });
    // A fills every slot of the process and queues more behind them.
    const backlog = await queue(a, agentA, SLOTS + 10);
    await until(`${SLOTS} of A running`, async () => [...(await statuses(backlog)).values()].filter((s) => s === 'running').length === SLOTS);
    const [mine] = await queue(b, agentB, 1);
    // No event marks a claim that took nothing: give the NOTIFY's claim pass time to run.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await statuses([mine!])).get(mine!), 'queued', 'no slot is free yet');
    // One slot turns over: it goes to B, whose queue came last but who runs nothing, not to A's next.
    expectStatus(await cancel(a, backlog[0]!), 200);
    await until("B's run takes the freed slot", async () => (await statuses([mine!])).get(mine!) === 'running');
    const now = await statuses(backlog);
    assert.equal([...now.values()].filter((s) => s === 'running').length, SLOTS - 1, "A's queued runs did not take it");
    await cancelAll(a, backlog);
    await cancel(b, mine!);
  });

  it('runs of several workspaces all finish, each exactly once', async () => {
    const keys = await Promise.all([0, 1, 2].map(() => api.seed.key({ plan: 'starter' })));
    const agents = await Promise.all(keys.map((k) => createAgent(api, k.key)));
    const started = await Promise.all(
      keys.flatMap((k, i) => Array.from({ length: 6 }, (_, j) => execute(api, k.key, agents[i]!, { input: `run ${j}` }).then((r) => ({ k, r })))),
    );
    const done: Execution[] = [];
    for (const { k, r } of started) {
      expectStatus(r, 202);
      done.push(await waitFor(api, k.key, r.body.id));
    }
    assert.ok(done.every((e) => e.status === 'succeeded'));
    const events = await api.query<{ n: number }>(
      sql`select count(*)::int as n from execution_events where type = 'execution.started' and execution_id in ${done.map((e) => e.id)}`,
    );
    assert.equal(events[0]!.n, done.length, 'each started once');
  });
});
