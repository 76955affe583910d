// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, readStream } from '../executions/helpers';
import type { CreatedKey } from './types';

// Idempotency-Key on every POST (docs/api.md, "Idempotency"): a retry gets the first answer again
// and does nothing else; another body or endpoint under the key, or a retry in progress, is 409.

let api: TestServer;
let owner: SeededKey;

before(async () => {
  api = await startServer();
  owner = await api.seed.key({ ...UNLIMITED });
});
after(() => api?.close());

const count = async (table: 'api_keys' | 'executions') =>
  (await api.query<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]!.n;
const createKey = (body: unknown, idempotencyKey: string, key = owner.key) =>
  api.request<CreatedKey>('POST', '/v1/keys', { key, body, headers: { 'idempotency-key': idempotencyKey } });

describe('Idempotency-Key', () => {
  it('a retry replays the stored answer (same status and body, Idempotent-Replayed) and creates nothing', async () => {
    const n = await count('api_keys');
    const first = await createKey({ name: 'once' }, 'create-key-1');
    expectStatus(first, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await createKey({ name: 'once' }, 'create-key-1');
    expectStatus(again, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body, 'the same key (and secret) comes back');
    assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
    assert.equal(await count('api_keys'), n + 1);
  });

  it('the same body in another key order is the same request', async () => {
    const a = await createKey({ name: 'order', scopes: ['agents:read'] }, 'order-1');
    const b = await createKey({ scopes: ['agents:read'], name: 'order' }, 'order-1');
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.equal(b.body.id, a.body.id);
  });

  it('another body or another endpoint under the key is 409 idempotency_conflict', async () => {
    expectStatus(await createKey({ name: 'first' }, 'conflict-1'), 201);
    expectError(await createKey({ name: 'second' }, 'conflict-1'), 409, 'idempotency_conflict');
    const agentId = await createAgent(api, owner.key);
    expectError(await execute(api, owner.key, agentId, { input: 'x' }, { 'idempotency-key': 'conflict-1' }), 409, 'idempotency_conflict');
  });

  it('a retry while the first is still in progress is 409 (message says in progress) with Retry-After: 1; other conflicts have none', async () => {
    await api.query(sql`insert into idempotency_keys (workspace_id, environment, key, api_key_id, fingerprint, locked_until, expires_at)
      values (${owner.workspace.id}, ${owner.environment}, 'busy-1', ${owner.id}, 'x', now() + interval '1 minute', now() + interval '1 day')`);
    const res = await createKey({ name: 'busy' }, 'busy-1');
    const err = expectError(res, 409, 'idempotency_conflict');
    assert.match(err.message, /in progress/);
    assert.equal(res.headers.get('retry-after'), '1');
    expectStatus(await createKey({ name: 'first' }, 'dup-1'), 201);
    const other = await createKey({ name: 'second' }, 'dup-1');
    expectError(other, 409, 'idempotency_conflict');
    assert.equal(other.headers.get('retry-after'), null, 'another body under the key is not worth retrying');
  });

  it('400, 401 and 403 answers are not stored: the caller fixes the request and retries under the same key', async () => {
    expectError(await createKey({ name: '' }, 'fix-1'), 400, 'invalid_parameter');
    const weak = await api.seed.key({ workspace: owner.workspace, environment: owner.environment, scopes: ['agents:read'] });
    expectError(await createKey({ name: 'fixed' }, 'fix-1', weak.key), 403, 'insufficient_scope');
    const fixed = await createKey({ name: 'fixed' }, 'fix-1');
    expectStatus(fixed, 201);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  it('a record replays only to the API key that made it: another key of the workspace gets 409, never the answer', async () => {
    // The attack: a key without keys:manage replays an admin key's Idempotency-Key and body to
    // receive the secret of the key the admin created.
    const admin = await api.seed.key({ workspace: owner.workspace, environment: owner.environment });
    const created = await createKey({ name: 'made by admin' }, 'bound-1', admin.key);
    expectStatus(created, 201);
    const reader = await api.seed.key({ workspace: owner.workspace, environment: owner.environment, scopes: ['agents:read'] });
    const stolen = await createKey({ name: 'made by admin' }, 'bound-1', reader.key);
    expectError(stolen, 403, 'insufficient_scope');
    const peer = await api.seed.key({ workspace: owner.workspace, environment: owner.environment });
    const replay = expectError(await createKey({ name: 'made by admin' }, 'bound-1', peer.key), 409, 'idempotency_conflict', 'Idempotency-Key');
    assert.match(replay.message, /another API key/);
    assert.ok(!JSON.stringify(replay).includes(created.body.key), 'the secret never reaches another key');
    const mine = await createKey({ name: 'made by admin' }, 'bound-1', admin.key);
    assert.equal(mine.headers.get('idempotent-replayed'), 'true');
    assert.equal(mine.body.key, created.body.key, 'the key that made it gets its answer back');
  });

  it('stored answers are sealed: the table holds no secret a reader of the database could use', async () => {
    const created = await createKey({ name: 'sealed' }, 'sealed-1');
    expectStatus(created, 201);
    const rows = await api.query<Record<string, unknown>>(sql`select * from idempotency_keys where key = 'sealed-1'`);
    assert.equal(rows.length, 1);
    const stored = JSON.stringify(rows[0]);
    assert.ok(!stored.includes(created.body.key), 'no plaintext secret');
    assert.ok(!stored.includes(created.body.key.slice(12, 30)), 'not even part of it');
    assert.ok(!stored.includes('"sealed"'), 'nor the rest of the answer');
  });

  it('keys are per workspace and environment', async () => {
    const other = await api.seed.key({ ...UNLIMITED });
    const mine = await createKey({ name: 'shared' }, 'shared-1');
    const theirs = await createKey({ name: 'shared' }, 'shared-1', other.key);
    expectStatus(theirs, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual(theirs.body.id, mine.body.id);
  });

  it('a malformed Idempotency-Key is 400 invalid_parameter', async () => {
    expectError(await createKey({ name: 'x' }, 'x'.repeat(256)), 400, 'invalid_parameter', 'Idempotency-Key');
    expectError(await createKey({ name: 'x' }, 'tab\there'), 400, 'invalid_parameter', 'Idempotency-Key');
  });

  it('execute: a retried request runs the agent once (202, wait and stream alike)', async () => {
    const agentId = await createAgent(api, owner.key);
    const n = await count('executions');
    const a = await execute(api, owner.key, agentId, { input: 'pay once' }, { 'idempotency-key': 'exe-1' });
    const b = await execute(api, owner.key, agentId, { input: 'pay once' }, { 'idempotency-key': 'exe-1' });
    expectStatus(a, 202);
    expectStatus(b, 202);
    assert.equal(b.body.id, a.body.id);
    const w1 = await execute(api, owner.key, agentId, { input: 'wait once', wait: true }, { 'idempotency-key': 'exe-2' });
    const w2 = await execute(api, owner.key, agentId, { input: 'wait once', wait: true }, { 'idempotency-key': 'exe-2' });
    assert.equal(w2.status, 200);
    assert.equal(w2.body.id, w1.body.id);
    assert.equal(w2.body.status, 'succeeded');
    const url = `${api.url}/v1/agents/${agentId}/execute`;
    const s1 = await readStream(url, { method: 'POST', key: owner.key, body: { input: 'stream once', stream: true }, headers: { 'idempotency-key': 'exe-3' } });
    const s2 = await readStream(url, { method: 'POST', key: owner.key, body: { input: 'stream once', stream: true }, headers: { 'idempotency-key': 'exe-3' } });
    assert.equal(s2.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(s2.events, s1.events);
    assert.equal(await count('executions'), n + 3);
  });

  it('rotate-tool-secret under a key replays the same secret and rotates once (a retry must not lose the secret it answered)', async () => {
    const agentId = await createAgent(api, owner.key);
    const [before] = await api.query<{ tool_secret: string }>(sql`select tool_secret from agents where id = ${agentId}`);
    const rotate = () => api.request<{ toolSecret: string }>('POST', `/v1/agents/${agentId}/rotate-tool-secret`, { key: owner.key, headers: { 'idempotency-key': 'rotate-1' } });
    const a = await rotate();
    const b = await rotate();
    expectStatus(a, 200);
    expectStatus(b, 200);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.equal(b.body.toolSecret, a.body.toolSecret);
    const [after] = await api.query<{ tool_secret: string; previous_tool_secret: string }>(sql`select tool_secret, previous_tool_secret from agents where id = ${agentId}`);
    // Sealed at rest: the sealed current secret moved to previous as it was; the new one opens to the answer's.
    assert.equal(after!.previous_tool_secret, before!.tool_secret);
    assert.equal(api.opened(`agents.tool_secret:${agentId}`, after!.tool_secret), a.body.toolSecret);
  });

  it('cancel under a key replays the cancelled execution instead of 409', async () => {
    const agentId = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const run = await execute(api, owner.key, agentId, { input: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') });
    const c1 = await api.request('POST', `/v1/executions/${run.body.id}/cancel`, { key: owner.key, headers: { 'idempotency-key': 'cancel-1' } });
    const c2 = await api.request('POST', `/v1/executions/${run.body.id}/cancel`, { key: owner.key, headers: { 'idempotency-key': 'cancel-1' } });
    expectStatus(c1, 200);
    expectStatus(c2, 200);
    assert.deepEqual(c2.body, c1.body);
  });
});
