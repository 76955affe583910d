import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../server/keys/format';
import { expectError, expectStatus, rateHeaders } from '../expect';
import { startServer, type TestServer } from '../harness';

// The brute-force guard: requests that identify no valid key are limited per client address.
// Its own file, because the limit comes from the environment the server starts with.

let api: TestServer;
before(async () => {
  api = await startServer({ env: { RATE_LIMIT_ANON_PER_MINUTE: '5' } });
});
after(() => api?.close());

describe('per-address limit for requests without a valid key', () => {
  it('answers 429 to the 6th bad request in a minute, and still serves valid keys', async () => {
    const good = await api.seed.key({});
    for (let i = 1; i <= 5; i++) {
      const res = await api.request('GET', '/v1/keys', { key: generateKey('test').key });
      expectError(res, 401, 'invalid_api_key');
      const h = rateHeaders(res);
      assert.equal(h.limit, 5);
      assert.equal(h.remaining, 5 - i);
    }
    const refused = await api.request('GET', '/v1/keys', { key: generateKey('test').key });
    expectError(refused, 429, 'rate_limit_exceeded');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(rateHeaders(refused).remaining, 0);
    expectError(await api.request('GET', '/v1/keys'), 429, 'rate_limit_exceeded');

    // A valid key is counted against its own plan, not the address.
    const ok = await api.request('GET', '/v1/keys', { key: good.key });
    expectStatus(ok, 200);
    assert.equal(rateHeaders(ok).limit, 60);
  });
});
