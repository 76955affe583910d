import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { dashboardCall, testSessions } from './dashboard';
import { expectStatus, rateHeaders } from './expect';
import { startServer, type TestServer, type Workspace } from './harness';

// The dashboard's mutations under the plan's limits, as REST's requests are (docs/decisions.md,
// "Dashboard"): one counter per workspace and environment, queries not limited by plan. Run
// against each rate-limit store: memory (PGlite), the PostgreSQL table, Redis.

export type StoreName = 'memory' | 'postgres' | 'redis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function dashboardLimitsSuite(store: StoreName): void {
  let api: TestServer;
  const counters: string[] = [];

  before(async () => {
    api = await startServer({ dashboardSession: testSessions(), env: store === 'redis' ? { REDIS_URL } : {} });
  });
  after(async () => {
    await api?.close();
    if (store === 'redis' && counters.length > 0) {
      const redis = new Redis(REDIS_URL);
      await redis.del(...counters.flatMap((c) => [`rl:key:min:${c}`, `rl:key:day:${c}`])).finally(() => redis.disconnect());
    }
  });

  /** A starter workspace with a test key and a sandbox agent made over REST (one request of the key). */
  async function starter() {
    const workspace = await api.seed.workspace();
    const key = await api.seed.key({ workspace, environment: 'test' });
    counters.push(`dash:${workspace.id}:test`, `dash:${workspace.id}:live`, key.id);
    const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: key.key, body: { name: 'dash', model: 'sandbox/echo' } });
    expectStatus(agent, 201);
    return { workspace, key, agentId: agent.body.id };
  }

  const start = (ws: Workspace, agentId: string, input: string, environment: 'test' | 'live' = 'test') =>
    dashboardCall(api, ws, 'mutation', 'executions.execute', { id: agentId, input }, { environment });

  const executionsOf = async (ws: Workspace) =>
    (await api.query<{ n: number }>(sql`select count(*)::int as n from executions where workspace_id = ${ws.id}`))[0]!.n;

  describe(`dashboard mutations under the plan's limits (${store} store)`, () => {
    it('a starter workspace gets 60 of 150 concurrent executions.execute; 90 are 429 rate_limit_exceeded and write nothing', async () => {
      const { workspace, key, agentId } = await starter();
      const calls = await Promise.all(Array.from({ length: 150 }, (_, i) => start(workspace, agentId, `run ${i}`)));
      const ok = calls.filter((c) => c.status === 200);
      const refused = calls.filter((c) => c.status === 429);
      assert.equal(ok.length, 60, `statuses: ${calls.map((c) => c.status).join(',')}`);
      assert.equal(refused.length, 90);
      for (const r of refused) {
        assert.equal(r.error?.data.code, 'TOO_MANY_REQUESTS');
        assert.deepEqual(r.error?.data.apiError, { type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null });
        assert.match(r.error?.message ?? '', /try again in \d+ (seconds|minutes)$/);
        assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
        assert.equal(r.headers.get('x-ratelimit-limit'), '60');
      }
      assert.equal(await executionsOf(workspace), 60);

      // Queries (the pages' own polling) are not limited by plan.
      const lists = await Promise.all(Array.from({ length: 80 }, () => dashboardCall(api, workspace, 'query', 'executions.list', {})));
      assert.deepEqual([...new Set(lists.map((l) => l.status))], [200]);

      // The workspace's API key has its own budget (1 request so far), and the other environment its own.
      const rest = await api.request('GET', '/v1/agents', { key: key.key });
      expectStatus(rest, 200);
      assert.equal(rateHeaders(rest).remaining, 58);
      const live = await dashboardCall(api, workspace, 'mutation', 'keys.create', { name: 'live one', environment: 'live' }, { environment: 'live' });
      assert.equal(live.status, 200, JSON.stringify(live.error));
      // Another workspace is untouched.
      const other = await starter();
      assert.equal((await start(other.workspace, other.agentId, 'hello')).status, 200);

      // A plan change applies on the next mutation, without resetting the count.
      await api.seed.setPlan(workspace, 'professional');
      assert.equal((await start(workspace, agentId, 'after upgrade')).status, 200);
    });

    it('REST calls of the same procedures are charged once, to their key, never to the dashboard', async () => {
      const { workspace, key } = await starter();
      for (let i = 2; i <= 5; i++) {
        const res = await api.request('POST', '/v1/agents', { key: key.key, body: { name: `rest ${i}` } });
        expectStatus(res, 201);
        assert.equal(rateHeaders(res).remaining, 60 - i);
      }
      const dash = await Promise.all(Array.from({ length: 61 }, (_, i) => dashboardCall(api, workspace, 'mutation', 'agents.create', { name: `dash ${i}` })));
      assert.equal(dash.filter((d) => d.status === 200).length, 60, 'the dashboard still had all 60');
    });

    it('the daily cap refuses too, with the day window in the headers', { skip: store === 'memory' && 'the memory store cannot be seeded from outside' }, async () => {
      const { workspace, agentId } = await starter();
      const name = `dash:${workspace.id}:test`;
      if (store === 'postgres') {
        await api.query(sql`insert into rate_limit_windows (key, minute_points, minute_expire, day_points, day_expire)
          values (${name}, 0, now() + interval '1 minute', 10000, now() + interval '1 day')`);
      } else {
        const redis = new Redis(REDIS_URL);
        await redis.set(`rl:key:day:${name}`, 10_000, 'EX', 86_400).finally(() => redis.disconnect());
      }
      const refused = await start(workspace, agentId, 'over the day');
      assert.equal(refused.status, 429);
      assert.equal(refused.error?.data.apiError?.code, 'rate_limit_exceeded');
      assert.equal(refused.headers.get('x-ratelimit-limit'), '10000');
      assert.ok(Number(refused.headers.get('retry-after')) > 3_600);
      assert.equal(await executionsOf(workspace), 0);
    });
  });
}
