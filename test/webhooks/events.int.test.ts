import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { execute, waitFor } from '../executions/helpers';
import { createWebhook, eventually, ofType, settled } from './helpers';
import { startReceiver, verify, type Receiver } from './receiver';

// Events (docs/webhooks.md, "The contract"): every type is emitted by the change that causes it,
// with the resource exactly as the REST API shows it, and delivered; a change that rolls back emits
// nothing; GET /v1/events lists them newest first (filter by type, keyset pages), per workspace and
// environment.

let api: TestServer;
let receiver: Receiver;
before(async () => {
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1' } });
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await api?.close();
});

const owner = (): Promise<SeededKey> => api.seed.key({ ...UNLIMITED });
type Event = { id: string; type: string; createdAt: string; environment: string; data: { object: Record<string, unknown> } };

async function eventsOf(key: string, query = ''): Promise<Event[]> {
  const res = await api.request<{ data: Event[] }>('GET', `/v1/events${query}`, { key });
  expectStatus(res, 200);
  return res.body.data;
}

describe('an event for every type, delivered', () => {
  it('emits and delivers each of the ten types with the REST view of its resource', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: receiver.url, events: ['*'] });
    const start = receiver.received.length;
    // key.created / key.revoked
    const key = await api.request<{ id: string; key: string }>('POST', '/v1/keys', { key: o.key, body: { name: 'evented' } });
    expectStatus(key, 201);
    const keyList = await api.request<{ data: Record<string, unknown>[] }>('GET', '/v1/keys', { key: o.key });
    const keyView = keyList.body.data.find((k) => k.id === key.body.id)!;
    expectStatus(await api.request('DELETE', `/v1/keys/${key.body.id}`, { key: o.key }), 200);
    // agent.created / agent.updated
    const agent = await api.request<{ id: string; toolSecret: string }>('POST', '/v1/agents', { key: o.key, body: { name: 'Evented' } });
    const updated = await api.request<Record<string, unknown>>('PATCH', `/v1/agents/${agent.body.id}`, { key: o.key, body: { description: 'now described' } });
    // execution.started / execution.succeeded, then conversation.deleted
    const ok = await execute(api, o.key, agent.body.id, { input: 'hello', wait: true });
    expectStatus(ok, 200);
    expectStatus(await api.request('DELETE', `/v1/conversations/${ok.body.conversationId}`, { key: o.key }), 200);
    // execution.failed (a run over its time limit)
    const slow = await api.request<{ id: string }>('POST', '/v1/agents', { key: o.key, body: { name: 'Slow', model: 'sandbox/slow', timeoutSeconds: 1 } });
    const failed = await execute(api, o.key, slow.body.id, { input: 'one two three four five six seven eight nine ten eleven twelve' });
    const failedView = await waitFor(api, o.key, failed.body.id);
    assert.equal(failedView.status, 'failed');
    // execution.cancelled, then agent.deleted
    const running = await execute(api, o.key, slow.body.id, { input: 'one two three four five six seven eight nine ten' });
    const cancelled = await api.request('POST', `/v1/executions/${running.body.id}/cancel`, { key: o.key });
    expectStatus(cancelled, 200);
    const agentBeforeDelete = await api.request<Record<string, unknown>>('GET', `/v1/agents/${agent.body.id}`, { key: o.key });
    expectStatus(await api.request('DELETE', `/v1/agents/${agent.body.id}`, { key: o.key }), 200);

    const types = ['key.created', 'key.revoked', 'agent.created', 'agent.updated', 'agent.deleted', 'execution.started', 'execution.succeeded', 'execution.failed', 'execution.cancelled', 'conversation.deleted'];
    await eventually(async () => new Set(receiver.received.slice(start).map((r) => r.json.type)), (seen) => types.every((t) => seen.has(t)), 20_000, 'every event type delivered');
    const got = receiver.received.slice(start);
    for (const r of got) verify(hook.secret, r);
    const one = (type: string, id: unknown) => ofType(got, type).find((r) => r.json.data.object.id === id)!.json;

    assert.deepEqual(one('key.created', key.body.id).data.object, { ...keyView, lastUsed: null });
    assert.ok(!JSON.stringify(ofType(got, 'key.created', 'key.revoked')).includes(key.body.key), 'never a key secret');
    assert.equal(one('key.revoked', key.body.id).data.object.id, key.body.id);
    assert.ok(!JSON.stringify(got).includes(agent.body.toolSecret), 'never a tool secret');
    assert.deepEqual(one('agent.updated', agent.body.id).data.object, updated.body);
    assert.deepEqual(one('agent.deleted', agent.body.id).data.object, agentBeforeDelete.body);
    assert.deepEqual(one('execution.succeeded', ok.body.id).data.object, ok.body);
    assert.equal(one('execution.started', ok.body.id).data.object.status, 'running');
    assert.deepEqual(one('execution.failed', failed.body.id).data.object, failedView);
    assert.deepEqual(one('execution.cancelled', running.body.id).data.object, cancelled.body);
    const conv = one('conversation.deleted', ok.body.conversationId).data.object;
    assert.deepEqual(Object.keys(conv).sort(), ['agentId', 'createdAt', 'id', 'messages', 'updatedAt']);
    assert.deepEqual(conv.messages, [], 'a deleted conversation is sent without its messages');
    for (const r of got) {
      assert.equal(r.json.environment, 'test');
      assert.deepEqual(r.json, (await api.request<Event>('GET', `/v1/events/${r.json.id}`, { key: o.key })).body);
    }
  });
});

describe('outbox', () => {
  it('a change whose transaction rolls back emits nothing (and delivers nothing)', async () => {
    const o = await owner();
    const r = await startReceiver();
    try {
      const hook = await createWebhook(api, o.key, { url: r.url, events: ['key.created'] });
      const { createKey } = await import('../../server/modules/keys/service');
      const actor = { kind: 'user' as const, userId: o.workspace.userId, role: 'owner' as const, workspaceId: o.workspace.id, environment: 'test' as const, scopes: [] };
      await assert.rejects(
        api.db.transaction(async (tx) => {
          await createKey(tx, actor, { name: 'rolled back' });
          throw new Error('roll back');
        }),
        /roll back/,
      );
      const [{ n }] = (await api.query<{ n: number }>(sql`select count(*)::int as n from events where workspace_id = ${o.workspace.id} and type = 'key.created'`)) as [{ n: number }];
      assert.equal(n, 1, 'only the seed key’s event');
      await settled(api, hook.id);
      assert.equal(r.received.length, 0);
    } finally {
      await r.close();
    }
  });
});

describe('outbox without webhooks', () => {
  it('an event where the workspace and environment have no webhook is written dispatched (no relay run); a webhook of the other environment does not count', async () => {
    const o = await owner();
    const other = await api.seed.key({ ...UNLIMITED, workspace: o.workspace, environment: o.environment === 'test' ? 'live' : 'test' });
    const r = await startReceiver();
    try {
      await createWebhook(api, other.key, { url: r.url, events: ['agent.created'] });
      const quiet = await api.request<{ id: string }>('POST', '/v1/agents', { key: o.key, body: { name: 'nobody listens' } });
      expectStatus(quiet, 201);
      const at = (environment: string) =>
        api.query<{ same: boolean }>(sql`select dispatched_at = created_at as same from events
          where workspace_id = ${o.workspace.id} and environment = ${environment} and type = 'agent.created'`).then((rows) => rows.map((row) => row.same));
      // Marked by its own transaction (the same now()), not by a relay run after it.
      assert.deepEqual(await at(o.environment), [true]);

      const heard = await api.request<{ id: string }>('POST', '/v1/agents', { key: other.key, body: { name: 'someone listens' } });
      expectStatus(heard, 201);
      const [got] = await r.waitFor(1);
      assert.equal(got!.json.data.object.id, heard.body.id, 'the other environment’s event is relayed and delivered');
      assert.deepEqual(await at(other.environment), [false], 'dispatched by the relay, after its transaction');
      assert.equal(r.received.length, 1);
    } finally {
      await r.close();
    }
  });
});

describe('retention (maintenance), and deliveries nobody signalled', () => {
  it('deletes events older than 30 days with their deliveries; a pending delivery written without a signal is still sent (the dispatchers look every few seconds)', async () => {
    const o = await owner();
    const r = await startReceiver();
    try {
      const hook = await createWebhook(api, o.key, { url: r.url, events: ['agent.created'] });
      const { encodeTime } = await import('ulid');
      const { runMaintenance } = await import('../../server/processes/maintenance');
      const old = `evt_${encodeTime(Date.now() - 31 * 86_400_000, 10)}${'0'.repeat(16)}`;
      const recent = `evt_${encodeTime(Date.now() - 29 * 86_400_000, 10)}${'0'.repeat(16)}`;
      for (const id of [old, recent]) {
        await api.query(sql`insert into events (id, workspace_id, environment, type, object, dispatched_at) values (${id}, ${o.workspace.id}, 'test', 'agent.created', '{"id":"agt_x"}'::json, now())`);
      }
      // A delivery overdue by 2 minutes that no NOTIFY announced: the deliveries table is the queue.
      await api.query(
        sql`insert into webhook_deliveries (id, workspace_id, environment, webhook_id, event_id, event_type, status, next_attempt_at)
            values ('dlv_01JD8X43D4E5F6G7H8J9KAMBNC', ${o.workspace.id}, 'test', ${hook.id}, ${recent}, 'agent.created', 'pending', now() - interval '2 minutes')`,
      );
      const result = await runMaintenance(api.db);
      assert.ok(result.eventsDeleted >= 1);
      expectError(await api.request('GET', `/v1/events/${old}`, { key: o.key }), 404, 'resource_not_found');
      expectStatus(await api.request('GET', `/v1/events/${recent}`, { key: o.key }), 200);
      const [got] = await r.waitFor(1);
      assert.equal(got!.headers['webhook-id'], recent);
    } finally {
      await r.close();
    }
  });
});

describe('GET /v1/events', () => {
  it('lists newest first, filters by type, pages by cursor, and keeps environments and workspaces apart', async () => {
    const o = await owner();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.request<{ id: string }>('POST', '/v1/agents', { key: o.key, body: { name: `e${i}` } });
      ids.push(res.body.id);
    }
    const all = await eventsOf(o.key);
    assert.deepEqual(all.map((e) => e.id), [...all.map((e) => e.id)].sort().reverse());
    const created = await eventsOf(o.key, '?type=agent.created');
    assert.deepEqual(created.map((e) => e.data.object.id), [...ids].reverse());
    const page1 = await api.request<{ data: Event[]; hasMore: boolean; nextCursor: string }>('GET', '/v1/events?type=agent.created&limit=2', { key: o.key });
    assert.equal(page1.body.hasMore, true);
    const page2 = await eventsOf(o.key, `?type=agent.created&limit=2&after=${page1.body.nextCursor}`);
    assert.deepEqual(page2.map((e) => e.data.object.id), [ids[2], ids[1]]);
    const live = await api.seed.key({ workspace: o.workspace, environment: 'live' });
    assert.deepEqual((await eventsOf(live.key, '?type=agent.created')).length, 0);
    const other = await owner();
    assert.equal((await eventsOf(other.key, '?type=agent.created')).length, 0);
    expectError(await api.request('GET', `/v1/events/${all[0]!.id}`, { key: other.key }), 404, 'resource_not_found', 'id');
    expectError(await api.request('GET', `/v1/events/${all[0]!.id}`, { key: live.key }), 404, 'resource_not_found', 'id');
  });

  it('refuses an unknown type, a bad cursor, and answers 404 for an unknown id', async () => {
    const o = await owner();
    expectError(await api.request('GET', '/v1/events?type=agent.exploded', { key: o.key }), 400, 'invalid_parameter', 'type');
    expectError(await api.request('GET', '/v1/events?type=Agent.Created', { key: o.key }), 400, 'invalid_parameter', 'type');
    expectError(await api.request('GET', '/v1/events?after=agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: o.key }), 400, 'invalid_cursor', 'after');
    expectError(await api.request('GET', '/v1/events/evt_01JD8X41B2C3D4E5F6G7H8J9KA', { key: o.key }), 404, 'resource_not_found', 'id');
    expectError(await api.request('GET', `/v1/events/${'x'.repeat(500)}`, { key: o.key }), 404, 'resource_not_found', 'id');
  });
});

async function eventOf(o: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  const res = await api.request<{ id: string }>('POST', '/v1/agents', { key: admin.key, body: { name: 'for an event' } });
  const [row] = await api.query<{ id: string }>(sql`select id from events where type = 'agent.created' and object->>'id' = ${res.body.id}`);
  return row!.id;
}
securitySuite(() => api, {
  method: 'GET',
  path: '/v1/events',
  scope: 'webhooks:manage',
  successStatus: 200,
  create: (_a, o) => eventOf(o),
  listIds: (body) => (body as { data: { id: string }[] }).data.map((e) => e.id),
});
securitySuite(() => api, { method: 'GET', path: '/v1/events/{id}', scope: 'webhooks:manage', successStatus: 200, create: (_a, o) => eventOf(o) });
