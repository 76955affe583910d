import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus, rateHeaders } from '../expect';
import { startServer, type TestServer } from '../harness';

// When the shared rate-limit store is unreachable, the API keeps serving and keeps limiting:
// each process counts in memory until the store is back (rate-limiter-flexible's insurance).

let api: TestServer;
before(async () => {
  // Nothing listens on port 1: Redis is "down" for the whole file.
  api = await startServer({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
});
after(() => api?.close());

describe('rate limits with Redis down', () => {
  it('serves requests with the usual headers and still refuses the 61st of a starter key', async () => {
    const key = await api.seed.key({});
    for (let i = 1; i <= 60; i++) {
      const res = await api.request('GET', '/v1/keys?limit=1', { key: key.key });
      expectStatus(res, 200);
      assert.equal(rateHeaders(res).remaining, 60 - i);
    }
    const refused = await api.request('GET', '/v1/keys?limit=1', { key: key.key });
    expectError(refused, 429, 'rate_limit_exceeded');
  });
});
