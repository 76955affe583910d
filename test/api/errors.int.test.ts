// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { count } from 'drizzle-orm';
import { apiKeys } from '../../db/schema';
import { ERRORS, type ErrorCode } from '../../server/platform/errors';
import { generateKey } from '../../server/modules/keys/format';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, waitUntil, type ErrorBody, type SeededKey, type TestServer } from '../harness';

// Input and authentication errors on /v1: codes, params, the envelope, and that a refused
// request writes nothing.

let api: TestServer;
let admin: SeededKey;
before(async () => {
  api = await startServer();
  admin = await api.seed.key({ name: 'admin', ...UNLIMITED });
});
after(() => api?.close());

const keyCount = async () => (await api.db.select({ n: count() }).from(apiKeys))[0]!.n;
const post = (body: unknown, key = admin.key) => api.request('POST', '/v1/keys', { key, body });
const get = (query: string, key = admin.key) => api.request('GET', `/v1/keys${query}`, { key });

describe('400 on bad input (nothing written)', () => {
  let before0: number;
  before(async () => {
    before0 = await keyCount();
  });

  it('missing_required_field names the field', async () => {
    expectError(await post({}), 400, 'missing_required_field', 'name');
    expectError(await post({ scopes: ['agents:read'] }), 400, 'missing_required_field', 'name');
  });

  it('invalid_parameter for a bad name, scope, environment or expiry', async () => {
    expectError(await post({ name: 'x'.repeat(101) }), 400, 'invalid_parameter', 'name');
    expectError(await post({ name: '' }), 400, 'invalid_parameter', 'name');
    expectError(await post({ name: 42 }), 400, 'invalid_parameter', 'name');
    expectError(await post({ name: 'nul\u0000byte' }), 400, 'invalid_parameter', 'name');
    expectError(await get('?after=key_%00'), 400, 'invalid_parameter', 'after');
    expectError(await post({ name: 'a', scopes: ['agents:read', 'root'] }), 400, 'invalid_parameter', 'scopes');
    expectError(await post({ name: 'a', scopes: 'agents:read' }), 400, 'invalid_parameter', 'scopes');
    expectError(await post({ name: 'a', environment: 'prod' }), 400, 'invalid_parameter', 'environment');
    expectError(await post({ name: 'a', expiresAt: new Date(Date.now() - 60_000).toISOString() }), 400, 'invalid_parameter', 'expiresAt');
    expectError(await post({ name: 'a', expiresAt: 'next week' }), 400, 'invalid_parameter', 'expiresAt');
  });

  it('unknown_parameter for fields nobody may set (no mass assignment)', async () => {
    for (const field of ['id', 'workspaceId', 'createdAt', 'key', 'prefix', 'hash', 'revokedAt', 'lastUsed']) {
      expectError(await post({ name: 'a', [field]: 'x' }), 400, 'unknown_parameter', field);
    }
  });

  it('unknown_parameter for an unknown query parameter', async () => {
    expectError(await get('?foo=1'), 400, 'unknown_parameter', 'foo');
    expectError(await get('?key=1'), 400, 'unknown_parameter', 'key');
    expectError(await api.request('POST', '/v1/keys?name=x', { key: admin.key, body: { name: 'a' } }), 400, 'unknown_parameter', 'name');
  });

  it('invalid_json for a malformed or absurdly nested body', async () => {
    const deep = `{"name":"a","scopes":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    for (const raw of ['{"name":', '{name: "a"}', "{'name':'a'}", 'nul', deep]) {
      const res = await api.request('POST', '/v1/keys', { key: admin.key, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'invalid_json');
    }
  });

  it('invalid_parameter for limit 0, 101 or abc (param limit)', async () => {
    for (const limit of ['0', '101', 'abc', '-5', '2.5']) expectError(await get(`?limit=${limit}`), 400, 'invalid_parameter', 'limit');
  });

  it('invalid_cursor for a cursor of another kind or malformed', async () => {
    expectError(await get('?after=agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK'), 400, 'invalid_cursor', 'after');
    expectError(await get('?before=req_01JD8X3ZQ2N6W5V4T3S2R1P0MK'), 400, 'invalid_cursor', 'before');
    expectError(await get('?after=key_123'), 400, 'invalid_cursor', 'after');
    expectError(await get('?after=hello'), 400, 'invalid_cursor', 'after');
  });

  it('parameter_conflict for after and before together', async () => {
    const id = admin.id;
    expectError(await get(`?after=${id}&before=${id}`), 400, 'parameter_conflict');
  });

  it('wrote nothing for any of the refused requests above', async () => {
    assert.equal(await keyCount(), before0);
  });
});

describe('boundaries that succeed', () => {
  it('accepts a 100-character name and an empty query', async () => {
    const res = await api.request<{ name: string }>('POST', '/v1/keys', { key: admin.key, body: { name: 'n'.repeat(100) } });
    expectStatus(res, 201);
    assert.equal(res.body.name, 'n'.repeat(100));
    expectStatus(await get('?limit=1'), 200);
    expectStatus(await get('?limit=100'), 200);
  });
});

describe('401 authentication errors', () => {
  it('missing_api_key without an Authorization header, and a key in the query string does not count', async () => {
    expectError(await api.request('GET', '/v1/keys'), 401, 'missing_api_key');
    expectError(await api.request('GET', `/v1/keys?api_key=${admin.key}`), 401, 'missing_api_key');
    expectError(await api.request('GET', `/v1/keys?key=${admin.key}`), 401, 'missing_api_key');
  });

  it('invalid_api_key for a bad checksum, a wrong prefix, an unknown key or another scheme', async () => {
    const last = admin.key.at(-1) === 'a' ? 'b' : 'a';
    const badChecksum = admin.key.slice(0, -1) + last;
    const cases = [
      { authorization: `Bearer ${badChecksum}` },
      { authorization: `Bearer ${admin.key.replace('svc_test_', 'svc_live_')}` },
      { authorization: `Bearer ${admin.key.replace('svc_test_sk_', 'sk_test_')}` },
      { authorization: `Bearer ${generateKey('test').key}` },
      { authorization: `Bearer ${generateKey('live').key}` },
      { authorization: `Basic ${Buffer.from(`${admin.key}:`).toString('base64')}` },
      { authorization: admin.key },
      { authorization: 'Bearer' },
    ];
    for (const headers of cases) {
      const err = expectError(await api.request('GET', '/v1/keys', { headers }), 401, 'invalid_api_key');
      assert.ok(!err.message.includes(admin.key.slice(16)), 'the error echoes the key');
    }
  });

  it('api_key_revoked for a revoked key, api_key_expired for an expired one', async () => {
    const revoked = await api.seed.key({ workspace: admin.workspace });
    expectStatus(await api.request('DELETE', `/v1/keys/${revoked.id}`, { key: admin.key }), 200);
    expectError(await api.request('GET', '/v1/keys', { key: revoked.key }), 401, 'api_key_revoked');
    const expiring = await api.seed.key({ workspace: admin.workspace, expiresAt: new Date(Date.now() + 1_000).toISOString() });
    await waitUntil(expiring.expiresAt!);
    expectError(await api.request('GET', '/v1/keys', { key: expiring.key }), 401, 'api_key_expired');
  });
});

describe('403 permission errors', () => {
  it('insufficient_scope names keys:manage', async () => {
    const plain = await api.seed.key({ scopes: ['agents:read', 'agents:write', 'agents:execute', 'analytics:read'] });
    for (const [method, path, body] of [
      ['GET', '/v1/keys', undefined],
      ['POST', '/v1/keys', { name: 'x' }],
      ['DELETE', `/v1/keys/${plain.id}`, undefined],
    ] as const) {
      const err = expectError(await api.request(method, path, { key: plain.key, body }), 403, 'insufficient_scope');
      assert.match(err.message, /keys:manage/);
    }
    expectStatus(await api.request('GET', '/v1/keys', { key: admin.key }), 200);
  });
});

describe('check order: route → auth → rate limit → scope → input → lookup', () => {
  it('route before auth: no key on an unknown route is 404, on a wrong method 405', async () => {
    expectError(await api.request('GET', '/v1/nope'), 404, 'route_not_found');
    expectError(await api.request('PUT', '/v1/keys', { body: { name: 1 } }), 405, 'method_not_allowed');
  });

  it('auth before input: no key or a revoked key with a bad body is 401', async () => {
    expectError(await api.request('POST', '/v1/keys', { body: { id: 'x' } }), 401, 'missing_api_key');
    const bad = { rawBody: '{oops', headers: { 'content-type': 'text/plain' } };
    expectError(await api.request('POST', '/v1/keys', bad), 401, 'missing_api_key');
    expectError(await api.request('POST', '/v1/keys', { ...bad, key: generateKey('test').key }), 401, 'invalid_api_key');
  });

  it('scope before input and lookup: a key without the scope gets 403 whatever the body or id', async () => {
    const plain = await api.seed.key({ scopes: ['agents:read'] });
    expectError(await post({ id: 'x', name: 5 }, plain.key), 403, 'insufficient_scope');
    const raw = { key: plain.key, rawBody: '{oops', headers: { 'content-type': 'application/json' } };
    expectError(await api.request('POST', '/v1/keys', raw), 403, 'insufficient_scope');
    expectError(await api.request('POST', '/v1/keys', { ...raw, headers: { 'content-type': 'text/plain' } }), 403, 'insufficient_scope');
    expectError(await get('?limit=0', plain.key), 403, 'insufficient_scope');
    expectError(await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: plain.key }), 403, 'insufficient_scope');
  });

  it('input before lookup: a bad query on an unknown id is 400', async () => {
    expectError(await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK?force=1', { key: admin.key }), 400, 'unknown_parameter', 'force');
  });
});

describe('the error catalogue is what the API answers', () => {
  it('gives each code the status and type of its catalogue entry', async () => {
    const plain = await api.seed.key({ scopes: ['agents:read'] });
    const responses = [
      await post({ name: 'a', id: 'x' }),
      await post({}),
      await get('?limit=0'),
      await get('?after=agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK'),
      await get(`?after=${admin.id}&before=${admin.id}`),
      await api.request('POST', '/v1/keys', { key: admin.key, rawBody: '{', headers: { 'content-type': 'application/json' } }),
      await api.request('POST', '/v1/keys', { key: admin.key, rawBody: 'x', headers: { 'content-type': 'text/plain' } }),
      await api.request('GET', '/v1/keys'),
      await api.request('GET', '/v1/keys', { key: generateKey('test').key }),
      await get('', plain.key),
      await post({ name: 'a', environment: 'live' }),
      await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: admin.key }),
      await api.request('GET', '/v1/nope'),
      await api.request('PUT', '/v1/keys'),
    ];
    const seen = new Set<string>();
    for (const res of responses) {
      const { code, type } = (res.body as ErrorBody).error;
      const entry = ERRORS[code as ErrorCode];
      assert.ok(entry, `${code} is not in the catalogue`);
      assert.deepEqual([res.status, type], [entry.status, entry.type], code);
      seen.add(code);
    }
    assert.equal(seen.size, responses.length, 'each case answers a different code');
  });
});
