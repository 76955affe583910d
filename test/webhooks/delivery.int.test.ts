import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createWebhook, deliveries, eventually, ofType, settled } from './helpers';
import { startReceiver, verify, type Receiver } from './receiver';

// Delivery to real receivers (docs/webhooks.md, "The contract"): signed the Standard Webhooks way,
// at least once, retried on the (compressed) schedule, honouring Retry-After, in order per
// endpoint; 410 and disabled endpoints get nothing more; no redirect is followed.

let api: TestServer;
before(async () => {
  api = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_SECONDS: '2' },
  });
});
after(() => api?.close());

const receivers: Receiver[] = [];
after(() => Promise.all(receivers.map((r) => r.close())));
async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

// Every request a receiver got must verify with the secret of a webhook pointing at it.
const secrets = new Map<Receiver, string[]>();
async function hookFor(key: string, r: Receiver, body: Record<string, unknown>) {
  const hook = await createWebhook(api, key, { url: r.url, ...body });
  secrets.set(r, [...(secrets.get(r) ?? []), hook.secret]);
  return hook;
}
after(() => {
  let checked = 0;
  for (const [r, known] of secrets) {
    for (const got of r.received) {
      assert.ok(
        known.some((secret) => {
          try {
            verify(secret, got);
            return true;
          } catch {
            return false;
          }
        }),
        `a delivery to ${r.url} does not verify`,
      );
      checked++;
    }
  }
  assert.ok(checked > 40, `verified ${checked} deliveries`);
});

async function owner(): Promise<SeededKey> {
  return api.seed.key({ ...UNLIMITED });
}

async function makeAgent(key: string, name = 'a'): Promise<string> {
  const res = await api.request<{ id: string }>('POST', '/v1/agents', { key, body: { name } });
  expectStatus(res, 201);
  return res.body.id;
}

describe('signed deliveries', () => {
  it('delivers the event verifiable with standardwebhooks; the body is GET /v1/events/:id; a tampered body fails', async () => {
    const o = await owner();
    const r = await receiver();
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const agentId = await makeAgent(o.key);
    const [got] = await r.waitFor(1);
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.equal(got!.headers['webhook-id'], got!.json.id);
    assert.match(String(got!.headers['webhook-id']), /^evt_/);
    verify(hook.secret, got!);
    const tampered = got!.body.replace('"type":"agent.created"', '"type":"agent.deleted"');
    assert.notEqual(tampered, got!.body);
    assert.throws(() => verify(hook.secret, { ...got!, body: tampered }));
    assert.throws(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got!));
    const event = await api.request('GET', `/v1/events/${got!.json.id}`, { key: o.key });
    expectStatus(event, 200);
    assert.deepEqual(JSON.parse(got!.body), event.body);
    assert.equal(got!.json.type, 'agent.created');
    const agent = await api.request('GET', `/v1/agents/${agentId}`, { key: o.key });
    assert.deepEqual(got!.json.data.object, agent.body);
    assert.ok(!('toolSecret' in got!.json.data.object));
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'succeeded');
    assert.equal(d!.eventId, got!.json.id);
    assert.equal(d!.attempts.length, 1);
    assert.equal(d!.attempts[0]!.statusCode, 200);
    assert.equal(d!.attempts[0]!.responseExcerpt, 'ok');
  });

  it('after a rotation, signs with the new and the previous secret', async () => {
    const o = await owner();
    const r = await receiver();
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    const rotated = await api.request<{ secret: string; previousSecretExpiresAt: string }>('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: o.key });
    expectStatus(rotated, 200);
    assert.notEqual(rotated.body.secret, hook.secret);
    const hours = (Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()) / 3.6e6;
    assert.ok(hours > 23.9 && hours <= 24, `previous secret lives 24 h (${hours})`);
    await makeAgent(o.key);
    const [got] = await r.waitFor(1);
    assert.equal(String(got!.headers['webhook-signature']).split(' ').length, 2);
    verify(rotated.body.secret, got!);
    verify(hook.secret, got!);
  });
});

describe('retries', () => {
  it('500, 500, then 200: three deliveries with one webhook-id, nothing after the 200', async () => {
    const o = await owner();
    const r = await receiver();
    r.script({ status: 500, body: 'boom' }, { status: 500 });
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    const got = await r.waitFor(3);
    assert.equal(new Set(got.map((g) => g.headers['webhook-id'])).size, 1);
    assert.ok(got[1]!.at - got[0]!.at >= 900, 'the retry waits for the schedule');
    await settled(api, hook.id);
    assert.equal(r.received.length, 3);
    const [d] = await deliveries(api, o.key, hook.id);
    assert.equal(d!.status, 'succeeded');
    assert.deepEqual(d!.attempts.map((a) => a.statusCode), [500, 500, 200]);
    assert.equal(d!.attempts[0]!.responseExcerpt, 'boom');
    assert.equal(d!.attempts[0]!.error, 'The endpoint answered HTTP 500');
  });

  it('fails the delivery after the last retry of the schedule', async () => {
    const o = await owner();
    const r = await receiver();
    r.fallback = { status: 503 };
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'failed', 10_000);
    assert.equal(d!.attempts.length, 4);
    assert.equal(d!.nextAttemptAt, null);
    assert.equal(r.received.length, 4);
  });

  it('honours Retry-After (within twice the scheduled delay)', async () => {
    const o = await owner();
    const r = await receiver();
    r.script({ status: 429, headers: { 'retry-after': '2' } }, { status: 503, headers: { 'retry-after': '3600' } });
    await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    const got = await r.waitFor(3, 10_000);
    const first = got[1]!.at - got[0]!.at;
    const second = got[2]!.at - got[1]!.at;
    assert.ok(first >= 1_900, `Retry-After: 2 waited ${first} ms`);
    assert.ok(second >= 1_900 && second < 3_500, `Retry-After: 3600 clamped to 2 s, waited ${second} ms`);
  });

  it('a receiver down, then up, gets every event (nothing lost)', async () => {
    const o = await owner();
    const r = await receiver();
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await r.stop();
    const ids = [await makeAgent(o.key, 'one'), await makeAgent(o.key, 'two'), await makeAgent(o.key, 'three')];
    await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds.length === 3 && ds.every((d) => d.attempts.length >= 1));
    const failed = await deliveries(api, o.key, hook.id);
    assert.match(failed[0]!.attempts[0]!.error!, /refused the connection/);
    await r.start();
    await eventually(async () => new Set(r.received.map((g) => g.json.data.object.id)), (s) => ids.every((id) => s.has(id)));
    await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds.every((d) => d.status === 'succeeded'));
  });

  it('a timeout is a failed attempt, retried', async () => {
    const o = await owner();
    const r = await receiver();
    r.script({ status: 200, delayMs: 3_000 });
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'succeeded', 15_000);
    assert.equal(d!.attempts[0]!.statusCode, null);
    assert.match(d!.attempts[0]!.error!, /did not answer within 2 s/);
    assert.ok(d!.attempts[0]!.latencyMs >= 1_900);
  });
});

describe('disabling', () => {
  it('410 Gone disables the webhook; nothing more is sent to it', async () => {
    const o = await owner();
    const r = await receiver();
    r.script({ status: 410 });
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    await r.waitFor(1);
    const after410 = await eventually(
      () => api.request<{ enabled: boolean; disabledReason: string }>('GET', `/v1/webhooks/${hook.id}`, { key: o.key }),
      (res) => res.body.enabled === false,
    );
    assert.equal(after410.body.disabledReason, 'endpoint_gone');
    const [d] = await deliveries(api, o.key, hook.id);
    assert.equal(d!.status, 'failed');
    await makeAgent(o.key);
    await settled(api, hook.id);
    assert.equal(r.received.length, 1);
  });

  it('a disabled webhook gets nothing; enabled again, it gets new events', async () => {
    const o = await owner();
    const r = await receiver();
    const hook = await hookFor(o.key, r, { events: ['agent.created'], enabled: false });
    assert.equal(hook.disabledReason, 'manual');
    await makeAgent(o.key);
    await settled(api, hook.id);
    assert.equal(r.received.length, 0);
    expectStatus(await api.request('PATCH', `/v1/webhooks/${hook.id}`, { key: o.key, body: { enabled: true } }), 200);
    const id = await makeAgent(o.key);
    const [got] = await r.waitFor(1);
    assert.equal(got!.json.data.object.id, id);
  });

  it('no redirect is followed: a 3xx is a failed attempt and its target gets nothing', async () => {
    const o = await owner();
    const target = await receiver();
    const r = await receiver();
    r.fallback = { status: 302, headers: { location: target.url } };
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.attempts.length === 2);
    assert.equal(d!.attempts[0]!.statusCode, 302);
    assert.match(d!.attempts[0]!.error!, /redirect/);
    assert.equal(target.received.length, 0);
  });
});

describe('order and fan-out', () => {
  it('each endpoint gets its events in order; every endpoint of the environment gets them', async () => {
    const o = await owner();
    const a = await receiver();
    const b = await receiver();
    await hookFor(o.key, a, { events: ['agent.created'] });
    await hookFor(o.key, b, { events: ['*'] });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await makeAgent(o.key, `n${i}`));
    const fromA = await a.waitFor(8);
    assert.deepEqual(fromA.map((g) => g.json.data.object.id), ids);
    await b.waitFor(8);
    assert.deepEqual(ofType(b.received, 'agent.created').map((g) => g.json.data.object.id), ids);
    // Nothing older than the webhooks: the seeded key's key.created happened before them.
    assert.deepEqual(new Set(b.received.map((g) => g.json.type)), new Set(['agent.created']));
  });

  it('a webhook gets no event that happened before it was created, however late the relay sees it', async () => {
    // Under load the relay can lag: the seeded key's key.created reached a '*' webhook made after it.
    const o = await owner();
    const r = await receiver();
    const hook = await hookFor(o.key, r, { events: ['*'] });
    // An event committed a minute ago that the relay has not handed out yet (as under lag).
    await api.query(sql`insert into events (id, workspace_id, environment, type, object, created_at)
      values (${'evt_00000000000000000000000001'}, ${o.workspace.id}, ${o.environment}, 'agent.deleted', '{"id":"agt_old"}', now() - interval '1 minute')`);
    const id = await makeAgent(o.key, 'after');
    const [got] = await r.waitFor(1);
    assert.equal(got!.json.data.object.id, id);
    await settled(api, hook.id);
    assert.deepEqual(r.received.map((g) => g.json.type), ['agent.created']);
    const [old] = await api.query<{ dispatched: boolean }>(sql`select dispatched_at is not null as dispatched from events where id = 'evt_00000000000000000000000001'`);
    assert.equal(old!.dispatched, true, 'the old event is dispatched (to nobody), not left behind');
  });

  it('events go only to webhooks of their workspace and environment', async () => {
    const o = await owner();
    const live = await api.seed.key({ workspace: o.workspace, environment: 'live' });
    const other = await owner();
    const mine = await receiver();
    const theirs = await receiver();
    const hook = await hookFor(o.key, mine, { events: ['agent.created'] });
    await hookFor(other.key, theirs, { events: ['agent.created'] });
    await makeAgent(live.key);
    await makeAgent(other.key);
    await theirs.waitFor(1);
    await settled(api, hook.id);
    assert.equal(mine.received.length, 0, 'a test webhook gets no live event, nor another workspace’s');
  });
});

describe('test event and resend', () => {
  it('sends a webhook.test event to one webhook, and resends a delivery with the same webhook-id', async () => {
    const o = await owner();
    const r = await receiver();
    const other = await receiver();
    const hook = await hookFor(o.key, r, { events: ['agent.deleted'] });
    const otherHook = await hookFor(o.key, other, { events: ['*'] });
    const sent = await api.request<{ id: string; type: string; data: { object: { id: string } } }>('POST', `/v1/webhooks/${hook.id}/test`, { key: o.key });
    expectStatus(sent, 202);
    assert.equal(sent.body.type, 'webhook.test');
    assert.equal(sent.body.data.object.id, hook.id);
    const [got] = await r.waitFor(1);
    assert.equal(got!.headers['webhook-id'], sent.body.id);
    verify(hook.secret, got!);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'succeeded');
    const again = await api.request<{ status: string }>('POST', `/v1/webhooks/${hook.id}/deliveries/${d!.id}/resend`, { key: o.key });
    expectStatus(again, 202);
    assert.equal(again.body.status, 'pending');
    const both = await r.waitFor(2);
    assert.equal(both[1]!.headers['webhook-id'], sent.body.id);
    const [after] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'succeeded' && ds[0].attempts.length === 2);
    assert.equal(after!.attempts.length, 2);
    await settled(api, otherHook.id);
    assert.equal(other.received.length, 0, 'a test event goes to its webhook only');
    const listed = await api.request<{ data: { id: string }[] }>('GET', '/v1/events', { key: o.key });
    assert.ok(!listed.body.data.some((e) => e.id === sent.body.id), 'test events are not listed');
  });

  it('the log shows the last 25 attempts of a delivery resent many times', async () => {
    const o = await owner();
    const r = await receiver();
    const hook = await hookFor(o.key, r, { events: ['agent.created'] });
    await makeAgent(o.key);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'succeeded');
    for (let i = 2; i <= 27; i++) {
      expectStatus(await api.request('POST', `/v1/webhooks/${hook.id}/deliveries/${d!.id}/resend`, { key: o.key }), 202);
      await eventually(() => deliveries(api, o.key, hook.id), (ds) => ds[0]?.status === 'succeeded' && ds[0].attempts.at(-1)!.attempt === i);
    }
    const [shown] = await deliveries(api, o.key, hook.id);
    assert.deepEqual(shown!.attempts.map((a) => a.attempt), Array.from({ length: 25 }, (_, i) => i + 3));
    assert.equal(r.received.length, 27);
  });
});
