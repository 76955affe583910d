// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from '../../db/client';
import { createTestDatabase, DB_KIND, TEST_AUTH_SECRET } from '../harness';
import { callProcess, seedTenant, startProcess, startWorker, stop, waitReady, type Proc } from '../processes';
import { startReceiver, verify, type Receiver } from './receiver';

// Webhooks across processes on one PostgreSQL database (docs/api.md, "Many processes, one service";
// docs/webhooks.md): a web process (RUN_WORKERS=false) writes the events; the one web process is
// killed with SIGKILL right after the change, before anything was delivered; a worker process
// started afterwards delivers it (nothing lost). With two workers, each event reaches each endpoint
// once, in order. A worker killed mid-delivery leaves a lease that runs out; another worker then
// sends the delivery again (at least once).

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';

describe('webhooks with separate web and worker processes', { skip }, () => {
  let pg: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database;
  let receiver: Receiver;
  let web: Proc;
  const workers: Proc[] = [];
  let key: string;
  let env: Record<string, string>;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-whk-'));

  const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);

  before(async () => {
    pg = await createTestDatabase();
    receiver = await startReceiver();
    env = {
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'warn',
      AUTH_SECRET: TEST_AUTH_SECRET,
      REDIS_URL: '',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    };
    web = await startProcess({ ...env, RUN_WORKERS: 'false' });
    await waitReady(web);
    database = await openDatabase({ databaseUrl: pg.url, dataDir: tmp, max: 2 });
    ({ key } = await seedTenant(database.db, { name: 'whk' }));
  });

  after(async () => {
    await Promise.all([stop(web), ...workers.map((w) => stop(w))]);
    await receiver?.close();
    await database?.close();
    await pg?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an event written just before the server is SIGKILLed is delivered by a worker started later', async () => {
    const hook = await call<{ id: string; secret: string }>(web, 'POST', '/v1/webhooks', { url: receiver.url, events: ['agent.created'] });
    assert.equal(hook.status, 201);
    const agent = await call<{ id: string }>(web, 'POST', '/v1/agents', { name: 'before the crash' });
    assert.equal(agent.status, 201);
    web.child.kill('SIGKILL');
    await new Promise((r) => web.child.once('exit', r));
    assert.equal(receiver.received.length, 0, 'nothing delivered yet: no worker was running');

    workers.push(await startWorker(env), await startWorker(env));
    const [got] = await receiver.waitFor(1, 30_000);
    assert.equal(got!.json.type, 'agent.created');
    assert.equal(got!.json.data.object.id, agent.body.id);
    verify(hook.body.secret, got!);
    web = await startProcess({ ...env, RUN_WORKERS: 'false' });
    await waitReady(web);
  });

  it('with two workers, every event reaches each endpoint once and in order', async () => {
    const second = await startReceiver();
    try {
      const start = receiver.received.length;
      await call(web, 'POST', '/v1/webhooks', { url: second.url, events: ['agent.created'] });
      const ids: string[] = [];
      for (let i = 0; i < 15; i++) ids.push((await call<{ id: string }>(web, 'POST', '/v1/agents', { name: `n${i}` })).body.id);
      await second.waitFor(15, 30_000);
      await receiver.waitFor(start + 15, 30_000);
      // A duplicate would come after the last expected one: no event marks its absence.
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(second.received.map((r) => r.json.data.object.id), ids);
      assert.deepEqual(receiver.received.slice(start).map((r) => r.json.data.object.id), ids);
    } finally {
      await second.close();
    }
  });

  it('a worker killed while it sends to an endpoint: another takes the endpoint once its lease runs out, and delivers', async () => {
    const third = await startReceiver();
    try {
      await Promise.all(workers.splice(0).map((w) => stop(w)));
      const lone = await startWorker(env);
      third.script({ status: 200, delayMs: 120_000 });
      await call(web, 'POST', '/v1/webhooks', { url: third.url, events: ['agent.created'] });
      const agent = await call<{ id: string }>(web, 'POST', '/v1/agents', { name: 'mid-delivery' });
      await third.waitFor(1, 15_000);
      lone.child.kill('SIGKILL');
      await new Promise((r) => lone.child.once('exit', r));
      workers.push(await startWorker(env));
      // The lease (20 s) runs out, the new worker takes the endpoint and sends the delivery again.
      const got = await third.waitFor(2, 45_000);
      assert.equal(got[1]!.json.data.object.id, agent.body.id);
      assert.equal(got[1]!.headers['webhook-id'], got[0]!.headers['webhook-id']);
    } finally {
      await third.close();
    }
  });
});
