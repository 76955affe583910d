// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../db/client';
import { queryRows } from '../../db/rows';
import { compactOnce } from '../../server/modules/usage/compactor';
import type { Execution } from '../executions/helpers';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { DB_KIND } from '../harness';
import { callProcess, QUICK_LOST_WORKER, seedTenant, startProcess, startScaledOut, startWorker, stop, waitReady, type Proc, type ScaledOut } from '../processes';
import { dayStart, type Answer, type ExecutionRow, type RequestRow } from './helpers';
import { eventually } from '../eventually';

// Usage analytics on the scaled-out topology: two web processes (RUN_WORKERS=false) and a
// worker on one PostgreSQL database. Executions finished by any process are counted exactly
// once — a run whose worker is killed included (it ends worker_lost, and counts as failed) —
// requests to both web processes are counted, a web process stopped with SIGTERM flushes what
// it counted, and compactors racing over one backlog count every record once.

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';

describe('usage analytics with 2 web + 1 worker processes', { skip }, () => {
  let scaled: ScaledOut;
  let database: Database;
  let fake: FakeOpenAI;
  let a: Proc;
  let b: Proc;
  let worker: Proc;
  let env: Record<string, string>;
  let key: string;
  let keyId: string;
  let workspaceId: string;
  let agentId: string;

  const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
  const until = <T>(read: () => Promise<T>, done: (x: T) => boolean, what: string, timeoutMs = 10_000) => eventually(what, read, done, { timeoutMs, everyMs: 50 });
  const executionsUsage = (proc: Proc) => call<Answer<ExecutionRow>>(proc, 'GET', `/v1/analytics/executions?start=${dayStart(1)}`).then((r) => r.body);
  const requestsUsage = (proc: Proc) => call<Answer<RequestRow>>(proc, 'GET', `/v1/analytics/requests?start=${dayStart(1)}&keyId=${keyId}`).then((r) => r.body);
  const final = (e: Execution) => ['succeeded', 'failed', 'cancelled'].includes(e.status);

  before(async () => {
    fake = await startFakeOpenAI();
    scaled = await startScaledOut({ OPENAI_COMPATIBLE_BASE_URL: fake.url });
    ({ a, b, worker, env, database } = scaled);
    ({ key, keyId, workspaceId } = await seedTenant(database.db, { name: 'usage', environment: 'live' }));
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'counted', model: 'openai-compatible/fake-1', timeoutSeconds: 120 });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    agentId = agent.body.id;
  });

  after(async () => {
    await Promise.all([stop(a), stop(b), stop(worker)]);
    await fake?.close();
    await scaled?.close();
  });

  it('counts executions from both web processes exactly once, the one whose worker was killed as failed', async () => {
    const ids = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await call<Execution>(i % 2 ? a : b, 'POST', `/v1/agents/${agentId}/execute`, { input: `count-${i}` });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        return res.body.id;
      }),
    );
    const slow = await call<Execution>(a, 'POST', `/v1/agents/${agentId}/execute`, { input: 'slow cancel me' });
    await until(() => call<Execution>(b, 'GET', `/v1/executions/${slow.body.id}`).then((r) => r.body), (e) => e.status === 'running', 'slow run not running');
    assert.equal((await call(b, 'POST', `/v1/executions/${slow.body.id}/cancel`)).status, 200);
    const done = await Promise.all(ids.map((id, i) => until(() => call<Execution>(i % 2 ? b : a, 'GET', `/v1/executions/${id}`).then((r) => r.body), final, `${id} not final`, 60_000)));
    assert.ok(done.every((e) => e.status === 'succeeded'));

    // A run in flight when its worker dies: worker_lost (from the next worker's sweeper), counted once.
    const doomed = await call<Execution>(b, 'POST', `/v1/agents/${agentId}/execute`, { input: 'slow doomed run' });
    await fake.waitFor(() => fake.requests.some((r) => JSON.stringify(r.body).includes('doomed run')), 10_000);
    worker.child.kill('SIGKILL');
    await new Promise((r) => worker.child.once('exit', r));
    worker = await startWorker({ ...env, ...QUICK_LOST_WORKER });
    const lost = await until(() => call<Execution>(a, 'GET', `/v1/executions/${doomed.body.id}`).then((r) => r.body), final, 'doomed run not final', 60_000);
    assert.equal(lost.error?.code, 'worker_lost');

    const tokens = done.reduce((n, e) => n + e.usage.inputTokens + e.usage.outputTokens, 0);
    const usage = await until(() => executionsUsage(b), (u) => u.totals.executions === 42, 'executions not all counted');
    assert.deepEqual(
      { executions: usage.totals.executions, succeeded: usage.totals.succeeded, failed: usage.totals.failed, cancelled: usage.totals.cancelled },
      { executions: 42, succeeded: 40, failed: 1, cancelled: 1 },
    );
    assert.ok(usage.totals.totalTokens >= tokens, 'tokens of the succeeded runs counted');
    // The worker compacts within seconds; the answer stays the same.
    await until(() => queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from usage_execution_records`), (r) => r[0]!.n === 0, 'records not compacted', 15_000);
    assert.deepEqual(await executionsUsage(a), usage);
  });

  it('counts requests served by either web process, and a web process stopped with SIGTERM flushes its count', async () => {
    // Reads of the test before may still sit unflushed in either process: `before` can be short by
    // them, so the wait below holds until the 404s of both processes are in too.
    const start = (await requestsUsage(a)).totals;
    const before = start.requests;
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i % 2 ? a : b, 'GET', i % 3 ? '/v1/agents' : '/v1/agents/agt_01JD8X41B2C3D4E5F6G7H8J9K0').then((r) => r.status)));
    assert.equal(statuses.filter((s) => s === 404).length, 10);
    // b is stopped before its 2 s flush comes round: what it counted is written at shutdown.
    assert.equal(await stop(b), 0);
    // The two reads of `before` and this one count too: 1 (before) + 30 + the reads until it holds.
    const after = await until(
      () => requestsUsage(a),
      (u) => u.totals.requests >= before + 31 && u.totals.clientErrors >= start.clientErrors + 10,
      'requests not all counted',
    );
    assert.ok(after.totals.clientErrors >= start.clientErrors + 10);
    b = await startProcess({ ...env, RUN_WORKERS: 'false' });
    await waitReady(b);
  });

  it('two compactors over one backlog count every record once', async () => {
    // A backlog of 30,000 records as finish writes them, compacted by the worker's
    // compactor and two more here at once.
    await database.db.execute(sql`insert into usage_execution_records (execution_id, workspace_id, environment, agent_id, model, status, completed_at, duration_ms, input_tokens, output_tokens, tool_calls)
      select 'exe_backlog_' || g, ${workspaceId}, 'live', 'agt_backlog', 'openai-compatible/fake-1', 'succeeded', now() - interval '1 minute', g % 1000, 3, 2, 0
      from generate_series(1, 30000) g`);
    const other = await openDatabase({ databaseUrl: env.DATABASE_URL!, dataDir: os.tmpdir(), max: 2 });
    try {
      const drain = async (db: Database['db']) => {
        for (let i = 0; i < 200; i++) {
          const moved = await compactOnce(db, { batch: 2_000 });
          if (moved === 0) return;
          if (moved === null) await new Promise((r) => setTimeout(r, 5));
        }
      };
      await Promise.all([drain(database.db), drain(other.db)]);
    } finally {
      await other.close();
    }
    const usage = await until(
      () => call<Answer<ExecutionRow>>(a, 'GET', `/v1/analytics/executions?start=${dayStart(1)}&agentId=agt_backlog`).then((r) => r.body),
      (u) => u.totals.executions === 30_000,
      'backlog not counted exactly',
    );
    assert.equal(usage.totals.inputTokens, 90_000);
    assert.equal(usage.totals.outputTokens, 60_000);
    const [rows] = await queryRows<{ n: number; hour: number; day: number }>(
      database.db,
      sql`select count(*)::int as n, coalesce(sum(executions) filter (where granularity = 'hour'), 0)::int as hour, coalesce(sum(executions) filter (where granularity = 'day'), 0)::int as day
        from usage_execution_rollups where agent_id = 'agt_backlog'`,
    );
    assert.equal(rows!.hour, 30_000, 'hour rows hold each record once');
    assert.equal(rows!.day, 30_000, 'day rows hold each record once');
  });
});
