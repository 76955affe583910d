// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute } from './helpers';

// Headroom (docs/concurrency.md): a worker whose event loop has been busy claims no more queued
// runs than BUSY_FLOOR (4) until the loop has room again; then it takes the rest. The server runs
// in this process, so the test makes the loop busy itself (a busy-wait of 200 ms every 210 ms).

let api: TestServer;
let owner: SeededKey;
before(async () => {
  api = await startServer({ env: { EXECUTION_HEADROOM: '0.8', EXECUTION_CONCURRENCY: '20' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(() => api?.close());

const running = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from executions where workspace_id = ${owner.workspace.id} and status = 'running'`))[0]!.n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('headroom', () => {
  it('a busy loop runs at most 4 queued runs; with room again, the rest start', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const long = Array.from({ length: 60 }, (_, w) => `w${w}`).join(' ');
    const spin = setInterval(() => {
      for (const end = Date.now() + 200; Date.now() < end; );
    }, 210);
    let ids: string[] = [];
    try {
      await sleep(1_500);
      const queued = await Promise.all(Array.from({ length: 12 }, (_, i) => execute(api, owner.key, slow, { input: `busy ${i} ${long}` })));
      for (const q of queued) expectStatus(q, 202);
      ids = queued.map((q) => q.body.id);
      let most = 0;
      for (let i = 0; i < 8; i++) {
        await sleep(250);
        most = Math.max(most, await running());
      }
      assert.ok(most >= 1 && most <= 4, `${most} running while the loop was busy`);
    } finally {
      clearInterval(spin);
    }
    const deadline = Date.now() + 10_000;
    while ((await running()) < 12) {
      assert.ok(Date.now() < deadline, `${await running()} of 12 running after the loop had room again`);
      await sleep(100);
    }
    await Promise.all(ids.map((id) => api.request('POST', `/v1/executions/${id}/cancel`, { key: owner.key })));
  });
});
