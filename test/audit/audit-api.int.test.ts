// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { AuditEventView } from '../../server/modules/audit/schemas';
import { expectError, expectStatus } from '../expect';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';

// GET /v1/audit-events (docs/audit.md): every change recorded with who, from where and what
// changed, in the change's transaction; listed newest first by keyset with filters; kept to the
// key's environment (plus the workspace's own records); append-only.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

type List = { data: AuditEventView[]; hasMore: boolean; nextCursor?: string; prevCursor?: string };

async function auditor(o: SeededKey): Promise<SeededKey> {
  return api.seed.key({ workspace: o.workspace, environment: o.environment, scopes: ['audit:read'] });
}
async function list(key: SeededKey, query = ''): Promise<List> {
  const res = await api.request<List>('GET', `/v1/audit-events${query}`, { key: key.key });
  expectStatus(res, 200);
  return res.body;
}

describe('audit records of keys', () => {
  it('records key.created with the actor, the request’s address, user agent and id, and what was set — never the secret', async () => {
    const admin = await api.seed.key({ scopes: ['keys:manage', 'agents:read'] });
    const res = await api.request<{ id: string; key: string }>('POST', '/v1/keys', {
      key: admin.key,
      headers: { 'user-agent': 'audit-test/1.0' },
      body: { name: 'CI deploys', scopes: ['agents:read'] },
    });
    expectStatus(res, 201);
    const { data } = await list(await auditor(admin), `?targetId=${res.body.id}`);
    assert.equal(data.length, 1);
    const record = data[0]!;
    assert.equal(record.action, 'key.created');
    assert.deepEqual(record.actor, { type: 'key', id: admin.id, prefix: admin.key.slice(0, 16) });
    assert.deepEqual(record.target, { type: 'key', id: res.body.id });
    assert.equal(record.environment, admin.environment);
    assert.equal(record.ip, '127.0.0.1');
    assert.equal(record.userAgent, 'audit-test/1.0');
    assert.equal(record.requestId, res.headers.get('x-request-id'));
    assert.deepEqual(record.changes, { name: [null, 'CI deploys'], environment: [null, admin.environment], scopes: [null, ['agents:read']] });
    assert.ok(!JSON.stringify(record).includes(res.body.key), 'never the secret');
    assert.ok(!JSON.stringify(record).includes(res.body.key.slice(16)), 'nor the part after the prefix');
  });

  it('records key.revoked; a refused change records nothing', async () => {
    const admin = await api.seed.key({ scopes: ['keys:manage'] });
    const made = await api.request<{ id: string }>('POST', '/v1/keys', { key: admin.key, body: { name: 'short-lived', scopes: ['keys:manage'] } });
    expectStatus(await api.request('DELETE', `/v1/keys/${made.body.id}`, { key: admin.key }), 200);
    expectError(await api.request('DELETE', `/v1/keys/${made.body.id}`, { key: admin.key }), 404, 'resource_not_found');
    expectError(await api.request('POST', '/v1/keys', { key: admin.key, body: { name: 'greedy', scopes: ['webhooks:manage'] } }), 403, 'insufficient_scope');
    const { data } = await list(await auditor(admin), `?actorId=${admin.id}`);
    assert.deepEqual(
      data.map((r) => [r.action, r.target.id]),
      [
        ['key.revoked', made.body.id],
        ['key.created', made.body.id],
      ],
    );
    assert.ok(data[0]!.changes?.revokedAt?.[1]);
  });

  it('a change made by a user outside a request (the admin CLI, a seed) names the user, with no address', async () => {
    const o = await api.seed.key({ scopes: ['audit:read'] });
    // Seeding a key goes through the service as a user with no request: no address, no agent.
    const { data } = await list(o, `?targetId=${o.id}`);
    assert.equal(data[0]!.actor.type, 'user');
    assert.equal((data[0]!.actor as { email: string | null }).email, o.workspace.email);
    assert.equal(data[0]!.ip, null);
  });
});

describe('listing', () => {
  it('pages newest first by keyset, filters by action, actor, target and time, and refuses an unknown action', async () => {
    const admin = await api.seed.key({ scopes: ['keys:manage'] });
    const reader = await auditor(admin);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api.request<{ id: string }>('POST', '/v1/keys', { key: admin.key, body: { name: `k${i}`, scopes: ['keys:manage'] } });
      ids.push(r.body.id);
    }
    expectStatus(await api.request('DELETE', `/v1/keys/${ids[0]}`, { key: admin.key }), 200);
    const first = await list(reader, `?actorId=${admin.id}&limit=4`);
    assert.equal(first.data.length, 4);
    assert.equal(first.hasMore, true);
    assert.equal(first.data[0]!.action, 'key.revoked');
    const second = await list(reader, `?actorId=${admin.id}&limit=4&after=${first.nextCursor}`);
    assert.deepEqual(
      second.data.map((r) => r.target.id),
      [ids[1], ids[0]],
    );
    assert.equal(second.hasMore, false);
    assert.ok(second.prevCursor);
    const back = await list(reader, `?actorId=${admin.id}&limit=4&before=${second.prevCursor}`);
    assert.deepEqual(back.data.map((r) => r.id), first.data.map((r) => r.id));
    const created = await list(reader, `?action=key.created&actorId=${admin.id}&limit=100`);
    assert.equal(created.data.length, 5);
    const all = await list(reader, `?limit=100`);
    const middle = all.data.find((r) => r.target.id === ids[2] && r.action === 'key.created')!;
    const since = await list(reader, `?actorId=${admin.id}&start=${encodeURIComponent(middle.createdAt)}&limit=100`);
    assert.ok(since.data.every((r) => r.createdAt >= middle.createdAt));
    assert.ok(since.data.some((r) => r.id === middle.id));
    const until = await list(reader, `?actorId=${admin.id}&end=${encodeURIComponent(new Date(Date.parse(middle.createdAt) + 1).toISOString())}&limit=100`);
    assert.ok(until.data.every((r) => r.createdAt <= middle.createdAt));
    assert.equal((await list(reader, '?start=2001-01-01&end=2001-01-02')).data.length, 0);
    expectError(await api.request('GET', '/v1/audit-events?action=key.exploded', { key: reader.key }), 400, 'invalid_parameter');
    expectError(await api.request('GET', '/v1/audit-events?start=2026-11-02&end=2026-11-01', { key: reader.key }), 400, 'invalid_parameter');
    expectError(await api.request('GET', '/v1/audit-events?start=yesterday', { key: reader.key }), 400, 'invalid_parameter');
    expectError(await api.request('GET', '/v1/audit-events?after=evt_01JD8X41B2C3D4E5F6G7H8J9KA', { key: reader.key }), 400, 'invalid_cursor');
  });

  it('keeps records 365 days: maintenance deletes older ones only', async () => {
    const o = await api.seed.key({ scopes: ['audit:read'] });
    const { encodeTime } = await import('ulid');
    const old = `aud_${encodeTime(Date.now() - 366 * 86_400_000, 10)}0000000000000001`;
    const kept = `aud_${encodeTime(Date.now() - 364 * 86_400_000, 10)}0000000000000001`;
    for (const id of [old, kept]) {
      await api.query(sql`insert into audit_events (id, workspace_id, environment, action, actor_type, target_type, target_id) values (${id}, ${o.workspace.id}, ${o.environment}, 'key.created', 'system', 'key', ${o.id})`);
    }
    const { runMaintenance } = await import('../../server/processes/maintenance');
    const { auditEventsDeleted } = await runMaintenance(api.db);
    assert.ok(auditEventsDeleted >= 1);
    const ids = (await list(o, '?limit=100')).data.map((r) => r.id);
    assert.ok(ids.includes(kept) && !ids.includes(old));
  });

  it('is append-only: no route writes a record, and the database refuses an update', async () => {
    const o = await api.seed.key({ scopes: ['audit:read', 'keys:manage'] });
    const [record] = (await list(o)).data;
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT'] as const) {
      const res = await api.request(method, method === 'POST' ? '/v1/audit-events' : `/v1/audit-events/${record!.id}`, { key: o.key, body: {} });
      assert.ok([404, 405].includes(res.status), `${method}: ${res.status}`);
    }
    await assert.rejects(api.query(sql`update audit_events set action = 'key.revoked' where id = ${record!.id}`), (err: Error & { cause?: Error }) =>
      /append-only/.test(`${err.message} ${err.cause?.message ?? ''}`),
    );
    assert.equal((await list(o)).data[0]!.action, record!.action);
    // Nor a DELETE or a TRUNCATE (the attack review of 2026-11-28 found both allowed): only the
    // retention's function deletes, and only what it is given.
    const appendOnly = (err: Error & { cause?: Error }) => /append-only/.test(`${err.message} ${err.cause?.message ?? ''}`);
    await assert.rejects(api.query(sql`delete from audit_events where id = ${record!.id}`), appendOnly);
    await assert.rejects(api.query(sql`truncate audit_events`), appendOnly);
    assert.equal((await list(o)).data[0]!.id, record!.id);
  });
});

// ---- the security suite ----
securitySuite(() => api, {
  method: 'GET',
  path: '/v1/audit-events',
  scope: 'audit:read',
  successStatus: 200,
  create: async (server, owner) => {
    const admin = await server.seed.key({ workspace: owner.workspace, environment: owner.environment, scopes: ['keys:manage'] });
    const res = await server.request<{ id: string }>('POST', '/v1/keys', { key: admin.key, body: { name: 'audited', scopes: ['keys:manage'] } });
    expectStatus(res, 201);
    return res.body.id;
  },
  listIds: (body) => (body as List).data.map((r) => r.target.id ?? ''),
});
