// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { createTestDatabase, DB_KIND } from './harness';

// postgres.js 3.4.9 reserves a transaction's connection in a hook at the end of the chain that
// says whether the connection takes more queries; when BEGIN filled the connection's pipeline
// (max_pipeline, 100 by default) the hook was skipped: the transaction failed with
// UNSAFE_TRANSACTION, or its connection went back to the pool still in the transaction (upstream
// porsager/postgres#1189). Seen in the noisy-neighbour bench (1,000 streams, 10,000 runs queued):
// "event relay failed: UNSAFE_TRANSACTION". patches/postgres+3.4.9.patch runs the hook whenever
// the query was sent. With `max_pipeline: 0` every BEGIN is at the boundary: the same path, each
// time (docs/platform-notes.md, "postgres.js's transactions at a full pipeline").

describe('postgres.js: a transaction whose BEGIN fills the pipeline', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, () => {
  let made: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: postgres.Sql;
  before(async () => {
    made = await createTestDatabase({ empty: true });
    // `max_pipeline` is a connection option postgres.js reads but its types leave out.
    sql = postgres(made.url, { max: 2, max_pipeline: 0, onnotice: () => {} } as postgres.Options<Record<string, never>>);
  });
  after(async () => {
    await sql?.end({ timeout: 5 });
    await made?.drop();
  });

  it('reserves its connection: the transaction commits, and no other query runs inside it', async () => {
    await sql`create table begun (n int)`;
    const inside = await sql.begin(async (tx) => {
      await tx`insert into begun values (1)`;
      // Another caller meanwhile: never on the transaction's connection.
      const [other] = await sql`select count(*)::int as n from begun`;
      return other!.n;
    });
    assert.equal(inside, 0, 'the other caller did not see the uncommitted row');
    const [after] = await sql`select count(*)::int as n, (select count(*)::int from pg_stat_activity where datname = current_database() and state like 'idle in transaction%') as open from begun`;
    assert.deepEqual({ ...after }, { n: 1, open: 0 });
  });
});
