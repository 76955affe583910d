import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { generateKey } from '../../server/modules/keys/format';
import type { ErrorCode } from '../../server/platform/errors';
import { expectError, expectStatus, rateHeaders } from '../expect';
import { startServer, type TestServer } from '../harness';

// The brute-force guard: requests that identify no valid key are limited per client address;
// a request with a valid key is governed by its key's limits only (docs/security.md). Its own
// file, because the limit and the trusted proxies come from the environment the server starts
// with. One trusted proxy: the client is the right-most X-Forwarded-For entry.

let api: TestServer;
before(async () => {
  api = await startServer({ env: { RATE_LIMIT_ANON_PER_MINUTE: '5', TRUST_PROXY: '1' } });
});
after(() => api?.close());

/** A request as our one proxy forwards it: whatever the client wrote, then the client's address. */
const from = (client: string, spoofed?: string) => ({ 'x-forwarded-for': spoofed ? `${spoofed}, ${client}` : client });

/** Puts an address over its limit with keyless requests. */
async function exhaust(address: string) {
  for (let i = 0; i < 6; i++) await api.request('GET', '/v1/keys', { headers: from(address) });
  expectError(await api.request('GET', '/v1/keys', { headers: from(address) }), 429, 'rate_limit_exceeded');
}

describe('per-address limit for requests without a valid key', () => {
  it('answers 429 to the 6th bad request in a minute; valid keys count against their plan', async () => {
    const good = await api.seed.key({});
    for (let i = 1; i <= 5; i++) {
      const res = await api.request('GET', '/v1/keys', { key: generateKey('test').key, headers: from('203.0.113.1') });
      expectError(res, 401, 'invalid_api_key');
      const h = rateHeaders(res);
      assert.equal(h.limit, 5);
      assert.equal(h.remaining, 5 - i);
    }
    const refused = await api.request('GET', '/v1/keys', { key: generateKey('test').key, headers: from('203.0.113.1') });
    expectError(refused, 429, 'rate_limit_exceeded');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(rateHeaders(refused).remaining, 0);
    expectError(await api.request('GET', '/v1/keys', { headers: from('203.0.113.1') }), 429, 'rate_limit_exceeded');

    // Another address with a valid key: counted against the key's plan, not the address.
    const ok = await api.request('GET', '/v1/keys', { key: good.key, headers: from('203.0.113.2') });
    expectStatus(ok, 200);
    assert.equal(rateHeaders(ok).limit, 60);
  });

  it('counts revoked, expired, unknown and malformed keys against the address, with its headers', async () => {
    const revoked = await api.seed.key({});
    expectStatus(await api.request('DELETE', `/v1/keys/${revoked.id}`, { key: revoked.key, headers: from('203.0.113.9') }), 200);
    // Expired by moving its expiry into the past (test/api/keys.int.test.ts waits for a real one).
    const expired = await api.seed.key({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await api.query(sql`update api_keys set expires_at = ${new Date(Date.now() - 1_000).toISOString()} where id = ${expired.id}`);
    const cases: [string | undefined, ErrorCode][] = [
      [revoked.key, 'api_key_revoked'],
      [expired.key, 'api_key_expired'],
      [generateKey('live').key, 'invalid_api_key'],
      ['svc_test_sk_not-a-key', 'invalid_api_key'],
      [undefined, 'missing_api_key'],
    ];
    for (const [i, [key, code]] of cases.entries()) {
      const res = await api.request('GET', '/v1/agents', { key, headers: from('203.0.113.10') });
      expectError(res, 401, code);
      assert.deepEqual([rateHeaders(res).limit, rateHeaders(res).remaining], [5, 4 - i], code);
    }
    expectError(await api.request('GET', '/v1/agents', { key: revoked.key, headers: from('203.0.113.10') }), 429, 'rate_limit_exceeded');
  });

  it('takes the right-most hop: rotating the X-Forwarded-For entries a client writes gains nothing', async () => {
    for (let i = 0; i < 5; i++) {
      expectError(await api.request('GET', '/v1/keys', { headers: from('203.0.113.4', `10.0.0.${i}`) }), 401, 'missing_api_key');
    }
    for (const spoof of ['10.9.9.9', '1.1.1.1, 2.2.2.2', 'not-an-ip']) {
      expectError(await api.request('GET', '/v1/keys', { headers: from('203.0.113.4', spoof) }), 429, 'rate_limit_exceeded');
    }
  });
});

describe('a valid key behind an address over its limit (a shared office or NAT)', () => {
  it('gets every request of its plan, with its own headers, while keyless requests stay refused', async () => {
    await exhaust('203.0.113.3');
    const starter = await api.seed.key({ plan: 'starter' });
    for (let i = 1; i <= 60; i++) {
      const res = await api.request('GET', '/v1/keys', { key: starter.key, headers: from('203.0.113.3') });
      expectStatus(res, 200);
      assert.deepEqual([rateHeaders(res).limit, rateHeaders(res).remaining], [60, 60 - i]);
    }
    const over = await api.request('GET', '/v1/keys', { key: starter.key, headers: from('203.0.113.3') });
    expectError(over, 429, 'rate_limit_exceeded');
    assert.equal(rateHeaders(over).limit, 60, 'refused by its own limit, not the address');
    // Another key behind the same address is untouched by both.
    expectStatus(await api.request('GET', '/v1/keys', { key: (await api.seed.key({})).key, headers: from('203.0.113.3') }), 200);
    expectError(await api.request('GET', '/v1/keys', { headers: from('203.0.113.3') }), 429, 'rate_limit_exceeded');
  });

  it('a valid key on unknown routes and wrong methods is counted against the key, not the address', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    for (let i = 1; i <= 8; i++) {
      const res = await api.request('GET', `/v1/nope/${i}`, { key: k.key, headers: from('203.0.113.5') });
      expectError(res, 404, 'route_not_found');
      assert.deepEqual([rateHeaders(res).limit, rateHeaders(res).remaining], [60, 60 - i]);
    }
    const wrongMethod = await api.request('PUT', '/v1/keys', { key: k.key, headers: from('203.0.113.5') });
    expectError(wrongMethod, 405, 'method_not_allowed');
    assert.deepEqual([rateHeaders(wrongMethod).limit, rateHeaders(wrongMethod).remaining], [60, 51]);
    const doc = await api.request('GET', '/v1/openapi.json', { key: k.key, headers: from('203.0.113.5') });
    expectStatus(doc, 200);
    assert.equal(rateHeaders(doc).remaining, 50);
    // The address was never charged: its first keyless request still has 4 left.
    const keyless = await api.request('GET', '/v1/keys', { headers: from('203.0.113.5') });
    expectError(keyless, 401, 'missing_api_key');
    assert.equal(rateHeaders(keyless).remaining, 4);
    expectStatus(await api.request('GET', '/v1/keys', { key: k.key, headers: from('203.0.113.5') }), 200);
  });

  it('unknown routes without a valid key are 404 until the address is over its limit, then 429', async () => {
    for (let i = 0; i < 5; i++) expectError(await api.request('GET', '/v1/nope', { key: generateKey('test').key, headers: from('203.0.113.6') }), 404, 'route_not_found');
    expectError(await api.request('GET', '/v1/nope', { headers: from('203.0.113.6') }), 429, 'rate_limit_exceeded');
    const valid = await api.request('GET', '/v1/nope', { key: (await api.seed.key({})).key, headers: from('203.0.113.6') });
    expectError(valid, 404, 'route_not_found');
    assert.equal(rateHeaders(valid).limit, 60);
  });
});

describe('unknown keys are remembered, valid and revoked ones never', () => {
  it('the same unknown key is refused from memory; a revoked key is refused at once and every time', async () => {
    const unknown = generateKey('test').key;
    expectError(await api.request('GET', '/v1/keys', { key: unknown, headers: from('203.0.113.7') }), 401, 'invalid_api_key');
    const good = await api.seed.key({});
    // With the keys table out of reach, only a lookup that goes to the database can fail.
    await api.query(sql`alter table api_keys rename to api_keys_away`);
    try {
      expectError(await api.request('GET', '/v1/keys', { key: unknown, headers: from('203.0.113.7') }), 401, 'invalid_api_key');
      expectError(await api.request('GET', '/v1/keys', { key: generateKey('test').key, headers: from('203.0.113.8') }), 500, 'internal_error');
      expectError(await api.request('GET', '/v1/keys', { key: good.key, headers: from('203.0.113.8') }), 500, 'internal_error');
    } finally {
      await api.query(sql`alter table api_keys_away rename to api_keys`);
    }
    expectStatus(await api.request('GET', '/v1/keys', { key: good.key, headers: from('203.0.113.8') }), 200);
    expectStatus(await api.request('DELETE', `/v1/keys/${good.id}`, { key: good.key, headers: from('203.0.113.8') }), 200);
    for (let i = 0; i < 3; i++) {
      expectError(await api.request('GET', '/v1/keys', { key: good.key, headers: from('203.0.113.11') }), 401, 'api_key_revoked');
    }
  });
});
