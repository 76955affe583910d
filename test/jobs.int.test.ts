import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { userSessions } from '../db/schema';
import type { Jobs, QueueSpec } from '../server/platform/jobs';
import { DB_KIND, startServer, type TestServer } from './harness';
import { launchArgs, ROOT, stop, type Proc } from './processes';
import { eventually, until } from './eventually';

function childEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

// The jobs seam (pg-boss) on the real database: a job sent inside a transaction exists only if
// the transaction commits, workers are woken at once (LISTEN/NOTIFY, not polling), and a
// separate `npm run worker` process runs jobs sent by a web process that runs none.

// Server modules are imported only after startServer has set the environment (server/platform/env.js
// reads it once, when first imported).
let api: TestServer;
let jobs: Jobs;
let echo: QueueSpec<{ n: number; sentAt: number }>;
before(async () => {
  // A web process that runs no workers: only the test's own handler and the worker process run jobs.
  api = await startServer({ env: { RUN_WORKERS: 'false' } });
  jobs = api.runtime.jobs;
  const { queue } = await import('../server/platform/jobs');
  echo = queue('test-echo');
});
after(() => api?.close());


describe('jobs', () => {
  const seen: { n: number; ms: number }[] = [];
  before(async () => {
    await jobs.declare(echo);
    await jobs.work(echo, async (job) => {
      seen.push({ n: job.data.n, ms: Date.now() - job.data.sentAt });
    }, { pollingIntervalSeconds: 30 });
  });

  const waitFor = (n: number, ms = 5_000) => eventually(`job ${n} handled`, () => seen.find((s) => s.n === n), Boolean, { timeoutMs: ms });

  it('runs a job within moments of its send (woken by NOTIFY, while polling is every 30 s)', async () => {
    const latencies: number[] = [];
    for (let n = 1; n <= 5; n++) {
      await jobs.send(echo, { n, sentAt: Date.now() });
      const got = await waitFor(n);
      assert.ok(got, `job ${n} ran`);
      latencies.push(got.ms);
    }
    latencies.sort((a, b) => a - b);
    assert.ok(latencies[2]! < 1_000, `median send→run ${latencies[2]} ms`);
  });

  it('a job sent in a transaction that rolls back never runs; one that commits does', async () => {
    await api.db
      .transaction(async (tx) => {
        await jobs.send(echo, { n: 100, sentAt: Date.now() }, { tx });
        throw new Error('roll back');
      })
      .catch(() => {});
    await api.db.transaction(async (tx) => {
      await jobs.send(echo, { n: 101, sentAt: Date.now() }, { tx });
    });
    assert.ok(await waitFor(101), 'the committed job ran');
    // Not in the queue at all (instead of waiting 300 ms to see it not run): it can never run.
    const [queued] = await api.query<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = 'test-echo' and (data->>'n')::int = 100`);
    assert.equal(queued!.n, 0, 'the rolled-back job was never queued');
    assert.equal(seen.find((s) => s.n === 100), undefined, 'the rolled-back job never ran');
  });
});

describe('npm run worker', { skip: DB_KIND !== 'postgres' && 'needs PostgreSQL (embedded mode runs workers in the server)' }, () => {
  it('runs a job another process sent, and stops cleanly on SIGTERM', async () => {
    const ws = await api.seed.workspace();
    const old = new Date(Date.now() - 3 * 86_400_000);
    await api.db.insert(userSessions).values({ id: `old-${Date.now()}`, userId: ws.userId, createdAt: old, expiresAt: old });
    const child = spawn(process.execPath, launchArgs('worker'), {
      cwd: ROOT,
      env: { ...childEnvironment(), LOG_LEVEL: 'info', RUN_WORKERS: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { child, url: '', output: '' };
    child.stdout.on('data', (c: Buffer) => (proc.output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (proc.output += c.toString()));
    try {
      await until('the worker started', () => proc.output.includes('worker started'), { timeoutMs: 30_000, everyMs: 50 });
      const { maintenanceQueue } = await import('../server/processes/maintenance');
      await jobs.send(maintenanceQueue, { requestedBy: 'test' });
      await until('the maintenance ran', () => proc.output.includes('maintenance done'), { timeoutMs: 30_000, everyMs: 50 });
      assert.match(proc.output, /"sessionsDeleted":1/);
      const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from user_sessions where user_id = ${ws.userId}`);
      assert.equal(row!.n, 0);
    } finally {
      assert.equal(await stop(proc), 0, proc.output);
    }
  });
});
