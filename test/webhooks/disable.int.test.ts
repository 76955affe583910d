import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import { startServer, UNLIMITED, type TestServer } from '../harness';
import { createWebhook, deliveries, eventually, settled } from './helpers';
import { startReceiver, type Receiver } from './receiver';

// The "failing for days" rule (docs/webhooks.md, "Retries and disabling"), with the days compressed
// to 2 s: an endpoint whose every attempt fails for that long is disabled (`failing`) and gets
// nothing more; a success in between resets the streak.

let api: TestServer;
const receivers: Receiver[] = [];
before(async () => {
  api = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1', WEBHOOK_DISABLE_AFTER_SECONDS: '2' },
  });
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await api?.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

describe('an endpoint failing for the configured time', () => {
  it('is disabled with disabledReason failing; its pending deliveries fail; new events are not sent', async () => {
    const o = await api.seed.key({ ...UNLIMITED });
    const r = await receiver();
    r.fallback = { status: 500 };
    const hook = await createWebhook(api, o.key, { url: r.url, events: ['agent.created'] });
    expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'a' } }), 201);
    const disabled = await eventually(
      () => api.request<{ enabled: boolean; disabledReason: string | null }>('GET', `/v1/webhooks/${hook.id}`, { key: o.key }),
      (res) => res.body.enabled === false,
      10_000,
      'disabled for failing',
    );
    assert.equal(disabled.body.disabledReason, 'failing');
    const attempts = r.received.length;
    assert.ok(attempts >= 3 && attempts <= 4, `failed for ~2 s at 1 s intervals: ${attempts} attempts`);
    const [d] = await deliveries(api, o.key, hook.id);
    assert.equal(d!.status, 'failed');
    expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'b' } }), 201);
    await settled(api, hook.id);
    assert.equal(r.received.length, attempts);
  });

  it('a success resets the streak: failures around it do not add up', async () => {
    const o = await api.seed.key({ ...UNLIMITED });
    const r = await receiver();
    // Fail, fail, succeed, then fail, fail: never 2 s of failures in a row.
    r.script({ status: 500 }, { status: 200 }, { status: 500 }, { status: 500 });
    const hook = await createWebhook(api, o.key, { url: r.url, events: ['agent.created'] });
    expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'a' } }), 201);
    await r.waitFor(2);
    expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'b' } }), 201);
    await r.waitFor(4, 10_000);
    // The fourth attempt (a failure) is recorded: had the streak added up, it disabled the webhook.
    await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds.reduce((n, d) => n + d.attempts.length, 0) >= 4);
    const got = await api.request<{ enabled: boolean }>('GET', `/v1/webhooks/${hook.id}`, { key: o.key });
    assert.equal(got.body.enabled, true);
  });
});

describe('deleting a webhook while one of its attempts is being recorded', () => {
  // The relay records a failed attempt in one transaction: the delivery's row, the attempt, then
  // the webhook's failure streak. A delete takes the webhook's row, then its deliveries (the
  // cascade). Taken in those orders, each waited for the other: PostgreSQL broke the deadlock by
  // failing the delete, answered 500 (found by the docs' curl examples, deleting a webhook just
  // after its resend). Here the attempt's insert is slowed (a trigger sleeps 0.3 s) so that the
  // delete comes in while the relay's transaction is under way.
  it('answers 200 and deletes it, the attempt recorded or not, never a 500', async () => {
    const o = await api.seed.key({ ...UNLIMITED });
    const r = await receiver();
    r.fallback = { status: 500 };
    await api.db.execute(sql.raw('create function test_slow_attempt() returns trigger language plpgsql as $$ begin perform pg_sleep(0.3); return new; end $$'));
    await api.db.execute(sql.raw('create trigger test_slow_attempt before insert on webhook_attempts for each row execute function test_slow_attempt()'));
    try {
      const hook = await createWebhook(api, o.key, { url: r.url, events: ['agent.created'] });
      expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'a' } }), 201);
      await r.waitFor(1);
      // The relay's transaction is now sleeping in the attempt's insert.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expectStatus(await api.request('DELETE', `/v1/webhooks/${hook.id}`, { key: o.key }), 200);
      expectStatus(await api.request('GET', `/v1/webhooks/${hook.id}`, { key: o.key }), 404);
    } finally {
      await api.db.execute(sql.raw('drop trigger test_slow_attempt on webhook_attempts'));
      await api.db.execute(sql.raw('drop function test_slow_attempt()'));
    }
  });
});
