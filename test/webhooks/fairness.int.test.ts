import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createWebhook, deliveries, eventually } from './helpers';
import { startReceiver, type Receiver } from './receiver';

// One workspace's webhooks never hold back another's deliveries (docs/webhooks.md, "Fair
// delivery"). Found on 2026-11-26: a workspace sent ~310 events, one by one, to an endpoint that
// hangs, then deleted the webhook; another workspace's test delivery (97 ms normally) took 104 s.
// The condition: every relay run sent a drain job for the webhook, so spread-out events left
// one queued job each, and once no drain of that webhook ran (deleted, or between retries) its
// jobs filled the job fetch, one moving per poll. Now the deliveries table is the queue: an
// endpoint is one candidate however long its backlog, claimed fairly between workspaces.

let api: TestServer;
let hanging: Receiver;
let b: Receiver;
before(async () => {
  // Attempts end after 1 s; the first retry 1 s later (a dead endpoint's retries come due often).
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_SECONDS: '1', WEBHOOK_RETRY_SCHEDULE: '1,1,60' } });
  hanging = await startReceiver();
  hanging.fallback = { status: 200, delayMs: 60_000 };
  b = await startReceiver();
});
after(async () => {
  await api?.close();
  await hanging?.close();
  await b?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` agent.updated events of `key`'s workspace, one at a time, far enough apart that each is its own relay run. */
async function spreadEvents(key: SeededKey, n: number): Promise<void> {
  const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: key.key, body: { name: 'noisy', model: 'sandbox/echo' } });
  expectStatus(agent, 201);
  for (let i = 0; i < n; i++) {
    expectStatus(await api.request('PATCH', `/v1/agents/${agent.body.id}`, { key: key.key, body: { name: `noisy ${i}` } }), 200);
    await sleep(60);
  }
}

/** Milliseconds from B's test send to its arrival. */
async function testDelivery(key: SeededKey, hookId: string): Promise<number> {
  const before = b.received.length;
  const sent = Date.now();
  expectStatus(await api.request('POST', `/v1/webhooks/${hookId}/test`, { key: key.key }), 202);
  const [got] = (await b.waitFor(before + 1, 10_000)).slice(before);
  return got!.at - sent;
}

describe('fair delivery between workspaces', () => {
  it("a deleted webhook's backlog of a hanging endpoint does not delay another workspace's delivery", async () => {
    const a = await api.seed.key({ ...UNLIMITED });
    const other = await api.seed.key({ ...UNLIMITED });
    const hookA = await createWebhook(api, a.key, { url: hanging.url, events: ['agent.updated'] });
    const hookB = await createWebhook(api, other.key, { url: b.url, events: ['agent.created'] });
    assert.ok((await testDelivery(other, hookB.id)) < 2_000);
    await spreadEvents(a, 80);
    expectStatus(await api.request('DELETE', `/v1/webhooks/${hookA.id}`, { key: a.key }), 200);
    // The attempt under way when it was deleted ends (1 s); then nothing of A's webhook is sending.
    await sleep(2_500);
    for (let i = 0; i < 3; i++) {
      const ms = await testDelivery(other, hookB.id);
      assert.ok(ms < 3_000, `B's delivery took ${ms} ms`);
    }
  });

  it("a workspace's many dead endpoints with long backlogs and due retries never take the slots another workspace needs", async () => {
    const a = await api.seed.key({ ...UNLIMITED });
    const other = await api.seed.key({ ...UNLIMITED });
    const hooks = [];
    for (let i = 0; i < 8; i++) hooks.push(await createWebhook(api, a.key, { url: `${hanging.url}?n=${i}`, events: ['agent.updated'] }));
    const hookB = await createWebhook(api, other.key, { url: b.url, events: ['agent.created'] });
    await spreadEvents(a, 30);
    // A's endpoints are being drained (hanging) and their retries come due every second.
    await eventually(
      async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from webhooks where workspace_id = ${a.workspace.id} and drain_token is not null`))[0]!.n,
      (n) => n >= 4,
      10_000,
      "A's drains",
    );
    const drainsOfA = (await api.query<{ n: number }>(sql`select count(*)::int as n from webhooks where workspace_id = ${a.workspace.id} and drain_token is not null`))[0]!.n;
    assert.ok(drainsOfA <= 4, `A holds ${drainsOfA} drains (at most 4 a workspace)`);
    for (let i = 0; i < 3; i++) {
      const ms = await testDelivery(other, hookB.id);
      assert.ok(ms < 3_000, `B's delivery took ${ms} ms`);
    }
    for (const h of hooks) expectStatus(await api.request('DELETE', `/v1/webhooks/${h.id}`, { key: a.key }), 200);
  });

  it('disabling a webhook fails its pending deliveries at once (nothing of it stays queued)', async () => {
    const a = await api.seed.key({ ...UNLIMITED });
    const hook = await createWebhook(api, a.key, { url: hanging.url, events: ['agent.updated'] });
    await spreadEvents(a, 5);
    await eventually(() => deliveries(api, a.key, hook.id, '?status=pending'), (d) => d.length >= 3, 5_000, 'pending deliveries');
    const off = await api.request<{ enabled: boolean }>('PATCH', `/v1/webhooks/${hook.id}`, { key: a.key, body: { enabled: false } });
    expectStatus(off, 200);
    assert.deepEqual(await deliveries(api, a.key, hook.id, '?status=pending'), []);
    const failed = await deliveries(api, a.key, hook.id, '?status=failed');
    assert.ok(failed.length >= 5);
  });
});
