// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { count } from 'drizzle-orm';
import { apiKeys } from '../../db/schema';
import { expectError, expectRequestId, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';

// HTTP-level conventions of /v1: request ids, unknown routes, wrong methods, body size and type.

let api: TestServer;
let admin: SeededKey;
before(async () => {
  api = await startServer();
  admin = await api.seed.key({ name: 'admin', ...UNLIMITED });
});
after(() => api?.close());

const keyCount = async () => (await api.db.select({ n: count() }).from(apiKeys))[0]!.n;

describe('X-Request-Id', () => {
  it('is on every response, success or error, and equals error.requestId', async () => {
    const responses = [
      await api.request('GET', '/v1/keys', { key: admin.key }),
      await api.request('POST', '/v1/keys', { key: admin.key, body: { name: 'rid' } }),
      await api.request('GET', '/v1/openapi.json'),
      await api.request('GET', '/v1/nope'),
      await api.request('GET', '/v1/keys'),
      await api.request('PUT', '/v1/keys', { key: admin.key }),
      await api.request('POST', '/v1/keys', { key: admin.key, body: {} }),
    ];
    const ids = responses.map((r) => expectRequestId(r));
    assert.equal(new Set(ids).size, ids.length, 'request ids repeat');
    for (const r of responses.filter((r) => r.status >= 400)) {
      assert.equal((r.body as { error: { requestId: string } }).error.requestId, r.headers.get('x-request-id'));
    }
  });

  it('answers JSON with a charset', async () => {
    const r = await api.request('GET', '/v1/keys', { key: admin.key });
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
  });
});

describe('404 and 405', () => {
  it('route_not_found for unknown paths under /v1', async () => {
    for (const path of ['/v1/nope', '/v1', '/v1/', '/v1/keys/key_x/extra', '/v1/agentsx']) {
      expectError(await api.request('GET', path, { key: admin.key }), 404, 'route_not_found');
    }
  });

  it('method_not_allowed with an Allow header for known paths', async () => {
    const put = await api.request('PUT', '/v1/keys', { key: admin.key, body: { name: 'x' } });
    expectError(put, 405, 'method_not_allowed');
    assert.deepEqual(put.headers.get('allow')?.split(/,\s*/).sort(), ['GET', 'POST']);

    const getOne = await api.request('GET', '/v1/keys/key_x', { key: admin.key });
    expectError(getOne, 405, 'method_not_allowed');
    assert.equal(getOne.headers.get('allow'), 'DELETE');

    const patch = await api.request('PATCH', `/v1/keys/${admin.id}`, { key: admin.key, body: { name: 'renamed' } });
    expectError(patch, 405, 'method_not_allowed');
    assert.equal(patch.headers.get('allow'), 'DELETE');

    const delAll = await api.request('DELETE', '/v1/keys', { key: admin.key });
    expectError(delAll, 405, 'method_not_allowed');
    assert.deepEqual(delAll.headers.get('allow')?.split(/,\s*/).sort(), ['GET', 'POST']);
  });
});

describe('request bodies', () => {
  it('413 request_too_large above 1 MiB, nothing written', async () => {
    const n = await keyCount();
    const big = JSON.stringify({ name: 'big', pad: 'x'.repeat(1024 * 1024) });
    const res = await api.request('POST', '/v1/keys', { key: admin.key, rawBody: big, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'request_too_large');
    assert.equal(await keyCount(), n);
  });

  it('413 for a chunked body that grows past 1 MiB without a Content-Length', async () => {
    const url = new URL('/v1/keys', api.url);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      req.write('{"name":"chunked","pad":"');
      for (let i = 0; i < 20; i++) req.write(chunk);
      req.end('"}');
    });
    assert.equal(status, 413, body);
    assert.equal((JSON.parse(body) as { error: { code: string } }).error.code, 'request_too_large');
  });

  it('accepts a body just under 1 MiB as far as size goes', async () => {
    const body = JSON.stringify({ name: 'near limit', pad: 'x'.repeat(1024 * 1024 - 100) });
    const res = await api.request('POST', '/v1/keys', { key: admin.key, rawBody: body, headers: { 'content-type': 'application/json' } });
    // Past the size check it is refused for the unknown field, not for its size.
    expectError(res, 400, 'unknown_parameter', 'pad');
  });

  it('415 unsupported_media_type for a non-JSON content type, nothing written', async () => {
    const n = await keyCount();
    const body = JSON.stringify({ name: 'typed' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await api.request('POST', '/v1/keys', { key: admin.key, rawBody: body, headers: { 'content-type': type } });
      expectError(res, 415, 'unsupported_media_type');
    }
    expectError(await api.request('POST', '/v1/keys', { key: admin.key, rawBody: body }), 415, 'unsupported_media_type');
    assert.equal(await keyCount(), n);
  });

  it('reads no body at all as an empty object (no Content-Type needed)', async () => {
    expectError(await api.request('POST', '/v1/keys', { key: admin.key }), 400, 'missing_required_field', 'name');
  });

  it('accepts application/json with a charset parameter', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const res = await api.request<{ name: string }>('POST', '/v1/keys', {
        key: admin.key,
        rawBody: JSON.stringify({ name: 'ünïcødé ✓' }),
        headers: { 'content-type': type },
      });
      expectStatus(res, 201);
      assert.equal(res.body.name, 'ünïcødé ✓');
    }
  });
});

describe('health', () => {
  it('/healthz is 200 and /readyz is 200 {status: ready}, without auth', async () => {
    const health = await api.request<{ status: string }>('GET', '/healthz');
    assert.equal(health.status, 200);
    const ready = await api.request<{ status: string }>('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });
});
