// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { expectError } from '../expect';
import { DB_KIND, PG_ADMIN_URL, startServer, type TestServer } from '../harness';

// When the database goes away under a running server: /v1 answers 500 `internal_error` in the
// envelope (with the request id, without the driver's message or a stack), and /readyz says
// not ready. PostgreSQL only: there the database can be taken away from outside the process.

describe('database lost while serving', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)' }, () => {
  let api: TestServer;
  before(async () => {
    api = await startServer();
  });
  after(() => api?.close());

  it('answers 500 internal_error without leaking, and /readyz 503', async () => {
    const key = await api.seed.key({ scopes: ['keys:manage'] });
    assert.equal((await api.request('GET', '/v1/keys', { key: key.key })).status, 200);

    const name = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`drop database ${name} with (force)`);
    } finally {
      await admin.end({ timeout: 5 });
    }

    const res = await api.request('GET', '/v1/keys', { key: key.key });
    expectError(res, 500, 'internal_error');
    assert.equal(res.body.error.type, 'api_error');
    const text = JSON.stringify(res.body);
    assert.doesNotMatch(text, /postgres|database|select|at \w+ \(|\.ts:/i, 'no driver message, query or stack');

    const ready = await fetch(`${api.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { status: string }).status, 'not_ready');
  });
});
