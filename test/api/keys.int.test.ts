// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus, ISO_MS } from '../expect';
import { startServer, waitUntil, type SeededKey, type TestServer } from '../harness';
import { KEY_ID, type CreatedKey, type KeyList, type Revoked } from './types';

// The key endpoints as a user meets them: create, use, list, revoke, expire.

let api: TestServer;
let admin: SeededKey;

before(async () => {
  api = await startServer();
  admin = await api.seed.key({ name: 'admin' });
});
after(() => api?.close());

const create = (body: Record<string, unknown>, key = admin.key) => api.request<CreatedKey>('POST', '/v1/keys', { key, body });
const list = (key = admin.key, query = '') => api.request<KeyList>('GET', `/v1/keys${query}`, { key });
const revoke = (id: string, key = admin.key) => api.request<Revoked>('DELETE', `/v1/keys/${id}`, { key });

describe('POST /v1/keys', () => {
  it('answers 201 with exactly the documented fields and the secret', async () => {
    const before = Date.now();
    const res = await create({ name: 'ci deploy' });
    expectStatus(res, 201);
    const k = res.body;
    assert.deepEqual(Object.keys(k).sort(), ['createdAt', 'createdBy', 'environment', 'expiresAt', 'id', 'key', 'name', 'prefix', 'scopes']);
    assert.match(k.id, KEY_ID);
    assert.equal(k.name, 'ci deploy');
    assert.match(k.key, /^svc_test_sk_[0-9A-Za-z]{32,}$/);
    assert.equal(k.prefix, k.key.slice(0, 16));
    assert.equal(k.expiresAt, null);
    assert.match(k.createdAt, ISO_MS);
    assert.ok(Math.abs(new Date(k.createdAt).getTime() - before) < 10_000);
    assert.deepEqual((k as unknown as { createdBy: unknown }).createdBy, { type: 'key', id: admin.id }, 'who made it: the key that called');
  });

  it('defaults to the caller’s environment and the default scopes', async () => {
    const { body } = await create({ name: 'defaults' });
    assert.equal(body.environment, 'test');
    assert.deepEqual(body.scopes, ['agents:read', 'agents:write', 'agents:execute', 'analytics:read']);
    const live = await api.seed.key({ workspace: admin.workspace, environment: 'live' });
    const fromLive = await create({ name: 'live child' }, live.key);
    expectStatus(fromLive, 201);
    assert.equal(fromLive.body.environment, 'live');
    assert.match(fromLive.body.key, /^svc_live_sk_/);
  });

  it('keeps the given scopes and a future expiry (returned in UTC)', async () => {
    const at = new Date(Date.now() + 86_400_000);
    const withOffset = at.toISOString().replace('Z', '+00:00');
    const res = await create({ name: 'scoped', scopes: ['keys:manage', 'agents:read'], expiresAt: withOffset });
    expectStatus(res, 201);
    assert.deepEqual([...res.body.scopes].sort(), ['agents:read', 'keys:manage']);
    assert.equal(res.body.expiresAt, at.toISOString());
  });

  it('makes a key that works at once', async () => {
    const { body } = await create({ name: 'worker', scopes: ['keys:manage'] });
    expectStatus(await list(body.key), 200);
    // A default key authenticates too: it is refused for its scopes, not as unknown.
    const plain = await create({ name: 'plain' });
    expectError(await list(plain.body.key), 403, 'insufficient_scope');
  });
});

describe('GET /v1/keys', () => {
  it('lists the documented fields and never a secret', async () => {
    const made = await create({ name: 'listed' });
    const res = await list(admin.key, '?limit=100');
    expectStatus(res, 200);
    assert.ok(!res.text.includes(made.body.key), 'the secret appears in list output');
    assert.ok(!res.text.includes(admin.key), 'the caller’s secret appears in list output');
    const item = res.body.data.find((k) => k.id === made.body.id);
    assert.ok(item, 'new key not listed');
    assert.deepEqual(Object.keys(item).sort(), ['createdAt', 'createdBy', 'environment', 'expiresAt', 'id', 'lastUsed', 'name', 'prefix', 'scopes']);
    const { key: _secret, ...rest } = made.body;
    assert.deepEqual({ ...item, lastUsed: undefined }, { ...rest, lastUsed: undefined });
    for (const k of res.body.data) assert.equal('key' in k, false);
  });

  it('shows lastUsed null before the first use and the time of use after it', async () => {
    const made = await create({ name: 'fresh', scopes: ['keys:manage'] });
    const find = async () => (await list(admin.key, '?limit=100')).body.data.find((k) => k.id === made.body.id)!;
    assert.equal((await find()).lastUsed, null);
    const t0 = Date.now();
    expectStatus(await list(made.body.key), 200);
    const lastUsed = (await find()).lastUsed;
    assert.ok(lastUsed, 'lastUsed still null after use');
    assert.match(lastUsed, ISO_MS);
    assert.ok(Math.abs(new Date(lastUsed).getTime() - t0) < 5_000, lastUsed);
    // It may lag by up to 60 s rather than cost a write per request.
    expectStatus(await list(made.body.key), 200);
    assert.equal((await find()).lastUsed, lastUsed);
  });
});

describe('DELETE /v1/keys/:id', () => {
  it('revokes: 200 {id, deleted, revokedAt}, refused at once, no longer listed, 404 again', async () => {
    const made = await create({ name: 'to revoke', scopes: ['keys:manage'] });
    expectStatus(await list(made.body.key), 200);
    const t0 = Date.now();
    const res = await revoke(made.body.id);
    expectStatus(res, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['deleted', 'id', 'revokedAt']);
    assert.equal(res.body.id, made.body.id);
    assert.equal(res.body.deleted, true);
    assert.match(res.body.revokedAt, ISO_MS);
    assert.ok(Math.abs(new Date(res.body.revokedAt).getTime() - t0) < 5_000);

    expectError(await list(made.body.key), 401, 'api_key_revoked');
    const listed = await list(admin.key, '?limit=100');
    assert.ok(!listed.body.data.some((k) => k.id === made.body.id), 'revoked key still listed');
    expectError(await revoke(made.body.id), 404, 'resource_not_found');
  });

  it('lets a key revoke itself', async () => {
    const self = await create({ name: 'self', scopes: ['keys:manage'] });
    const res = await revoke(self.body.id, self.body.key);
    expectStatus(res, 200);
    assert.equal(res.body.deleted, true);
    expectError(await list(self.body.key), 401, 'api_key_revoked');
  });

  it('answers 404 for an unknown or foreign-looking id', async () => {
    expectError(await revoke('key_01JD8X3ZQ2N6W5V4T3S2R1P0MK'), 404, 'resource_not_found');
    expectError(await revoke('agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK'), 404, 'resource_not_found');
    expectError(await revoke('nonsense'), 404, 'resource_not_found');
  });
});

describe('expiry', () => {
  it('refuses a key with 401 api_key_expired once expiresAt has passed', async () => {
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const res = await create({ name: 'short-lived', scopes: ['keys:manage'], expiresAt });
    expectStatus(res, 201);
    assert.equal(res.body.expiresAt, expiresAt);
    expectStatus(await list(res.body.key), 200);
    await waitUntil(expiresAt);
    expectError(await list(res.body.key), 401, 'api_key_expired');
  });
});

describe('secrets at rest', () => {
  it('stores only the SHA-256 of a key, never the key or its secret part', async () => {
    const made = await create({ name: 'at rest' });
    const list = await api.query<{ row: string; hash: string }>(sql`select row_to_json(k)::text as row, k.hash from api_keys k`);
    assert.ok(list.length >= 2);
    const secretPart = made.body.key.slice(16);
    for (const { row } of list) {
      assert.ok(!row.includes(made.body.key), 'full key stored');
      assert.ok(!row.includes(secretPart), 'secret part stored');
      assert.ok(!row.includes(admin.key.slice(16)), 'seeded secret stored');
    }
    const hash = createHash('sha256').update(made.body.key).digest('hex');
    assert.ok(list.some((r) => r.hash === hash), 'hash of the key not stored');
  });
});
