import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startServer, type TestServer } from '../test/harness';

// isUniqueViolation (db/errors.ts) on the errors each database really throws, through drizzle.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

describe('isUniqueViolation', () => {
  it('knows a duplicate key from any other failure, on this database', async () => {
    const { isUniqueViolation } = await import('./errors');
    // A table of its own (the test's database is its own too): a temporary one would live on one pooled connection only.
    await api.query(sql`create table uv (id text primary key)`);
    await api.query(sql`insert into uv values ('a')`);
    const dup = await api.query(sql`insert into uv values ('a')`).catch((e: unknown) => e);
    assert.equal(isUniqueViolation(dup), true);
    const other = await api.query(sql`insert into uv values (null)`).catch((e: unknown) => e);
    await api.query(sql`drop table uv`);
    assert.equal(isUniqueViolation(other), false);
    assert.equal(isUniqueViolation(new Error('duplicate key value violates unique constraint')), false, 'by its SQLSTATE, not its words');
  });
});
