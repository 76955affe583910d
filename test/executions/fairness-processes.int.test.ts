// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../db/client';
import { queryRows } from '../../db/rows';
import type { Plan } from '../../db/schema';
import { createTestDatabase, DB_KIND, TEST_AUTH_SECRET } from '../harness';
import { callProcess, seedTenant, startProcess, startWorker, stop, waitReady, type Proc } from '../processes';
import { until as waitUntil } from '../eventually';

// Concurrency limits and fairness hold across processes (docs/concurrency.md): one web process
// that runs no workers and two worker processes of 3 slots each, on one PostgreSQL database.
// A starter workspace never has more than 5 running at once, whichever worker runs them, and a
// workspace with a backlog over both workers holds back another's next run by one slot's
// turnover at most.

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';
const LONG = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');

describe('concurrency across 1 web + 2 worker processes', { skip }, () => {
  let pg: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database;
  let web: Proc;
  let workers: Proc[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-fair-'));

  const call = <T>(key: string, method: string, p: string, body?: unknown) => callProcess<T>(web.url, key, method, p, body);
  async function tenant(plan: Plan, customConcurrency: number | null = null) {
    const { key, workspaceId } = await seedTenant(database.db, { name: 'fair', plan, customConcurrency });
    const agent = await call<{ id: string }>(key, 'POST', '/v1/agents', { name: 'slow', model: 'sandbox/slow' });
    assert.equal(agent.status, 201);
    return { key, workspaceId, agentId: agent.body.id };
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;
  const start = async (t: Tenant, input: string) => {
    const res = await call<{ id: string }>(t.key, 'POST', `/v1/agents/${t.agentId}/execute`, { input });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.id;
  };
  const count = async (workspaceId: string, status: string) =>
    (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from executions where workspace_id = ${workspaceId} and status = ${status}`))[0]!.n;
  const until = (what: string, check: () => Promise<boolean>, timeoutMs = 15_000) => waitUntil(what, check, { timeoutMs, everyMs: 20 });

  let env: Record<string, string>;

  before(async () => {
    pg = await createTestDatabase();
    env = { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET, LOG_LEVEL: 'warn', EXECUTION_CONCURRENCY: '3' };
    web = await startProcess({ ...env, RUN_WORKERS: 'false' });
    await waitReady(web);
    workers = await Promise.all([startWorker(env), startWorker(env)]);
    database = await openDatabase({ databaseUrl: pg.url, dataDir: tmp, max: 2 });
  });

  after(async () => {
    await Promise.all([web, ...workers].filter(Boolean).map(stop));
    await database?.close();
    await pg?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a starter workspace never runs more than 5 at once over both workers', async () => {
    const t = await tenant('starter');
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => start(t, `run ${i} a b c`)));
    let most = 0;
    await until('all 12 finished', async () => {
      most = Math.max(most, await count(t.workspaceId, 'running'));
      return (await count(t.workspaceId, 'succeeded')) === ids.length;
    }, 30_000);
    assert.equal(most, 5, `at most 5 at once (saw ${most})`);
  });

  it('waits started in place on two processes that run workers never take more than the limit either', async () => {
    const t = await tenant('starter');
    const inPlace = await Promise.all([0, 1].map(() => startProcess({ ...env, RUN_WORKERS: 'true' })));
    try {
      await Promise.all(inPlace.map((p) => waitReady(p)));
      const quick = await call<{ id: string }>(t.key, 'POST', '/v1/agents', { name: 'quick', model: 'sandbox/slow' });
      let most = 0;
      let seen = '';
      let done = false;
      const sampler = (async () => {
        while (!done) {
          const rows = await queryRows<{ id: string; attempt: number; started_at: string }>(
            database.db,
            sql`select id, attempt, started_at::text from executions where workspace_id = ${t.workspaceId} and status = 'running'`,
          );
          if (rows.length > most) [most, seen] = [rows.length, JSON.stringify(rows)];
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          fetch(`${inPlace[i % 2]!.url}/v1/agents/${quick.body.id}/execute`, {
            method: 'POST',
            headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ input: `wait ${i} a b`, wait: true }),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; id?: string; error?: unknown } })),
        ),
      );
      done = true;
      await sampler;
      // On a failure, say what came back (a CI run once failed here with no more said).
      const odd = answers.filter((a) => a.status !== 200 || a.body.status !== 'succeeded');
      assert.deepEqual(odd, [], `every wait answers 200 succeeded; these did not: ${JSON.stringify(odd)}`);
      assert.ok(most <= 5, `at most 5 at once (saw ${most}: ${seen})`);
    } finally {
      await Promise.all(inPlace.map(stop));
    }
  });

  it("a backlog over both workers holds back another workspace's next run by one slot's turnover at most", async () => {
    const a = await tenant('enterprise');
    const b = await tenant('enterprise');
    const backlog: string[] = [];
    for (let i = 0; i < 12; i++) backlog.push(await start(a, `${i} ${LONG}`));
    await until('6 of A running (every slot of both workers)', async () => (await count(a.workspaceId, 'running')) === 6);
    const mine = await start(b, LONG);
    // Nothing happening has no event to wait for: give the workers' claim (woken by the NOTIFY) time to run.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await count(b.workspaceId, 'running'), 0, 'no slot is free yet');
    const [first] = await queryRows<{ id: string }>(database.db, sql`select id from executions where workspace_id = ${a.workspaceId} and status = 'running' limit 1`);
    assert.equal((await call(a.key, 'POST', `/v1/executions/${first!.id}/cancel`)).status, 200);
    await until("B's run takes the freed slot", async () => (await count(b.workspaceId, 'running')) === 1);
    assert.equal(await count(a.workspaceId, 'running'), 5, "A's queued runs did not take it");
    await Promise.all([...backlog, mine].map((id) => call(id === mine ? b.key : a.key, 'POST', `/v1/executions/${id}/cancel`)));
  });
});
