// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { count } from 'drizzle-orm';
import { apiKeys } from '../../db/schema';
import { expectError, expectStatus } from '../expect';
import { startServer, type SeededKey, type TestServer } from '../harness';
import type { CreatedKey, KeyList } from './types';

// No escalation (a key mints only what it holds, in its own environment) and isolation (a key
// sees only its own workspace and environment; foreign ids are 404, never 403).

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

const keyCount = async () => (await api.db.select({ n: count() }).from(apiKeys))[0]!.n;
const create = (key: string, body: Record<string, unknown>) => api.request<CreatedKey>('POST', '/v1/keys', { key, body });
const listIds = async (key: string) =>
  (await api.request<KeyList>('GET', '/v1/keys?limit=100', { key })).body.data.map((k) => k.id);

describe('no escalation', () => {
  it('a test key cannot create a live key (403 environment_mismatch), and nothing is written', async () => {
    const test = await api.seed.key({ environment: 'test' });
    const n = await keyCount();
    expectError(await create(test.key, { name: 'x', environment: 'live' }), 403, 'environment_mismatch');
    assert.equal(await keyCount(), n);
  });

  it('a live key cannot create a test key either', async () => {
    const live = await api.seed.key({ environment: 'live' });
    expectError(await create(live.key, { name: 'x', environment: 'test' }), 403, 'environment_mismatch');
    expectStatus(await create(live.key, { name: 'x', environment: 'live' }), 201);
  });

  it('a key cannot grant a scope it lacks (403 insufficient_scope naming it), and nothing is written', async () => {
    const k = await api.seed.key({ scopes: ['keys:manage', 'agents:read'] });
    const n = await keyCount();
    const err = expectError(await create(k.key, { name: 'x', scopes: ['agents:read', 'webhooks:manage'] }), 403, 'insufficient_scope');
    assert.match(err.message, /webhooks:manage/);
    assert.equal(await keyCount(), n);
    // The defaults include scopes this key lacks, so omitting scopes is escalation too.
    expectError(await create(k.key, { name: 'x' }), 403, 'insufficient_scope');
    assert.equal(await keyCount(), n);
  });

  it('a key can grant any subset of its own scopes', async () => {
    const k = await api.seed.key({ scopes: ['keys:manage', 'agents:read'] });
    const res = await create(k.key, { name: 'child', scopes: ['agents:read'] });
    expectStatus(res, 201);
    assert.deepEqual(res.body.scopes, ['agents:read']);
    expectStatus(await create(k.key, { name: 'twin', scopes: ['keys:manage', 'agents:read'] }), 201);
  });
});

describe('isolation', () => {
  let mine: SeededKey;
  let otherWorkspace: SeededKey;
  let otherEnvironment: SeededKey;

  before(async () => {
    mine = await api.seed.key({ environment: 'test' });
    otherWorkspace = await api.seed.key({ environment: 'test' });
    otherEnvironment = await api.seed.key({ workspace: mine.workspace, environment: 'live' });
  });

  it('lists only the keys of the caller’s workspace and environment', async () => {
    const ids = await listIds(mine.key);
    assert.ok(ids.includes(mine.id));
    assert.ok(!ids.includes(otherWorkspace.id), 'another workspace’s key is listed');
    assert.ok(!ids.includes(otherEnvironment.id), 'another environment’s key is listed');
    assert.deepEqual(await listIds(otherEnvironment.key), [otherEnvironment.id]);
  });

  it('answers 404 (never 403) for another workspace’s key, which stays usable', async () => {
    const res = await api.request('DELETE', `/v1/keys/${otherWorkspace.id}`, { key: mine.key });
    expectError(res, 404, 'resource_not_found');
    assert.ok(!res.text.includes(otherWorkspace.workspace.id), 'the 404 reveals the owner');
    expectStatus(await api.request('GET', '/v1/keys', { key: otherWorkspace.key }), 200);
    assert.ok((await listIds(otherWorkspace.key)).includes(otherWorkspace.id));
  });

  it('answers 404 (never 403) for a key of the other environment, which stays usable', async () => {
    expectError(await api.request('DELETE', `/v1/keys/${otherEnvironment.id}`, { key: mine.key }), 404, 'resource_not_found');
    expectError(await api.request('DELETE', `/v1/keys/${mine.id}`, { key: otherEnvironment.key }), 404, 'resource_not_found');
    expectStatus(await api.request('GET', '/v1/keys', { key: otherEnvironment.key }), 200);
    expectStatus(await api.request('GET', '/v1/keys', { key: mine.key }), 200);
  });

  it('answers the same 404 for a foreign id as for an id that never existed', async () => {
    const foreign = await api.request('DELETE', `/v1/keys/${otherWorkspace.id}`, { key: mine.key });
    const missing = await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: mine.key });
    const strip = (text: string, id: string) => text.replace(id, '<id>').replace(/req_\w+/, '<req>');
    assert.equal(strip(foreign.text, otherWorkspace.id), strip(missing.text, 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK'));
  });
});
