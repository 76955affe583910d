import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../server/keys/format';
import { expectError, expectStatus, rateHeaders } from '../expect';
import { startServer, type TestServer } from '../harness';

// The brute-force guard: requests that identify no valid key are limited per client address.
// Its own file, because the limit and the trusted proxies come from the environment the server
// starts with. One trusted proxy: the client is the right-most X-Forwarded-For entry.

let api: TestServer;
before(async () => {
  api = await startServer({ env: { RATE_LIMIT_ANON_PER_MINUTE: '5', TRUST_PROXY: '1' } });
});
after(() => api?.close());

/** A request as our one proxy forwards it: whatever the client wrote, then the client's address. */
const from = (client: string, spoofed?: string) => ({ 'x-forwarded-for': spoofed ? `${spoofed}, ${client}` : client });

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

  it('refuses a blocked address before looking its key up, even a valid key, until the window ends', async () => {
    const good = await api.seed.key({});
    for (let i = 0; i < 6; i++) await api.request('GET', '/v1/keys', { headers: from('203.0.113.3') });
    const res = await api.request('GET', '/v1/keys', { key: good.key, headers: from('203.0.113.3') });
    expectError(res, 429, 'rate_limit_exceeded');
    assert.equal(rateHeaders(res).limit, 5);
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
