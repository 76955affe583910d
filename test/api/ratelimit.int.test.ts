// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../server/modules/keys/format';
import { expectError, expectStatus, rateHeaders } from '../expect';
import { startServer, type TestServer } from '../harness';

// Per-key limits by plan and their headers (docs/api.md, "Rate limits"), over real HTTP.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

const list = (key: string) => api.request('GET', '/v1/keys', { key });

describe('rate limits per key', () => {
  it('a starter key gets exactly 60 requests a minute, then 429 with Retry-After', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    for (let i = 1; i <= 60; i++) {
      const res = await list(k.key);
      expectStatus(res, 200);
      const h = rateHeaders(res);
      assert.equal(h.limit, 60);
      assert.equal(h.remaining, 60 - i);
    }
    const refused = await list(k.key);
    expectError(refused, 429, 'rate_limit_exceeded');
    const h = rateHeaders(refused);
    assert.equal(h.limit, 60);
    assert.equal(h.remaining, 0);
    const retry = refused.headers.get('retry-after');
    assert.match(retry ?? '', /^\d+$/, `Retry-After: ${retry}`);
    assert.ok(Number(retry) >= 1 && Number(retry) <= 60, `Retry-After: ${retry}`);
    assert.ok(h.reset >= Math.floor(Date.now() / 1000) + Number(retry) - 1);

    // Rate limit comes before scope and input checks.
    expectError(await api.request('POST', '/v1/keys', { key: k.key, body: { bogus: true } }), 429, 'rate_limit_exceeded');
    // Another key of the same workspace has its own budget.
    const sibling = await api.seed.key({ workspace: k.workspace });
    expectStatus(await list(sibling.key), 200);
  });

  it('carries the headers on errors of an identified key too', async () => {
    const k = await api.seed.key({ plan: 'starter', scopes: ['agents:read'] });
    const forbidden = await list(k.key);
    expectError(forbidden, 403, 'insufficient_scope');
    assert.equal(rateHeaders(forbidden).limit, 60);
    const admin = await api.seed.key({ plan: 'starter' });
    const invalid = await api.request('POST', '/v1/keys', { key: admin.key, body: {} });
    expectError(invalid, 400, 'missing_required_field');
    assert.equal(rateHeaders(invalid).limit, 60);
    const missing = await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: admin.key });
    expectError(missing, 404, 'resource_not_found');
    assert.equal(rateHeaders(missing).remaining, 58);
  });

  it('a professional key gets 300 a minute', async () => {
    const k = await api.seed.key({ plan: 'professional' });
    const h = rateHeaders(await list(k.key));
    assert.equal(h.limit, 300);
    assert.equal(h.remaining, 299);
  });

  it('an enterprise key gets its custom per-minute limit', async () => {
    const k = await api.seed.key({ plan: 'enterprise', customRpm: 5 });
    for (let i = 1; i <= 5; i++) {
      const res = await list(k.key);
      expectStatus(res, 200);
      assert.deepEqual([rateHeaders(res).limit, rateHeaders(res).remaining], [5, 5 - i]);
    }
    expectError(await list(k.key), 429, 'rate_limit_exceeded');
  });

  it('a plan change applies from the next request', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    assert.equal(rateHeaders(await list(k.key)).limit, 60);
    await api.seed.setPlan(k.workspace, 'enterprise', 2_000);
    const h = rateHeaders(await list(k.key));
    assert.equal(h.limit, 2_000);
    assert.equal(h.remaining, 1_998);
  });
});

describe('requests without a valid key', () => {
  it('carry the per-address limiter’s headers', async () => {
    const responses = [
      await api.request('GET', '/v1/keys'),
      await api.request('GET', '/v1/keys', { key: generateKey('test').key }),
      await api.request('GET', '/v1/keys', { key: 'svc_test_sk_nope' }),
    ];
    for (const res of responses) {
      assert.equal(res.status, 401);
      assert.equal(rateHeaders(res).limit, 100_000);
    }
  });
});
