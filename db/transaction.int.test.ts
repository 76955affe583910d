// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import { DB_KIND } from '../test/harness';
import { drizzleOnTestDatabase } from '../test/drizzle-postgres';
import { endsPipelined, sendInOrder, transaction, transactionWhole } from './transaction';
import { writesTo } from '../test/socket-writes';
import type { Db } from './client';

// A transaction that ends with statements it does not await (`sendInOrder`, then the COMMIT that
// `transaction` sends when the callback returns: an execution's finish, lifecycle.ts). Each row
// records the transaction that wrote it, so a statement that ran after the COMMIT (in a
// transaction of its own) would show.

describe('a transaction ending with statements sent in order before its COMMIT', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, () => {
  let client: postgres.Sql;
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    ({ client, db, close } = await drizzleOnTestDatabase(2, (c) => c`create table ends (id text primary key, n integer not null, xact bigint not null default txid_current())`));
  });
  after(async () => {
    await close?.();
  });

  const rows_ = async () => rows();
  const rows = async () => (await client`select id, n, xact::text from ends order by id`).map((r) => ({ id: String(r.id), n: Number(r.n), xact: String(r.xact) }));

  it('runs them in their order, inside the transaction, and commits them', async () => {
    await client`delete from ends`;
    const out = await transaction(db, async (tx) => {
      assert.equal(endsPipelined(tx), true);
      await tx.execute(sql`insert into ends (id, n) values ('a', 1)`);
      // Each depends on the one before: out of order, the update finds no row and c copies nothing.
      const sent = sendInOrder(tx, [
        sql`insert into ends (id, n) values (${'b'}, ${1})`,
        sql`update ends set n = n + 1 where id = ${'b'}`,
        sql`insert into ends (id, n) select ${'c'}, n from ends where id = ${'b'}`,
      ]);
      sent.catch(() => {});
      return { sent };
    });
    await out.sent;
    const found = await rows();
    assert.deepEqual(found.map((r) => [r.id, r.n]), [['a', 1], ['b', 2], ['c', 2]]);
    assert.equal(new Set(found.map((r) => r.xact)).size, 1, 'every row was written by the one transaction');
  });

  it('rolls the whole transaction back when one of them fails, and reports that error', async () => {
    await client`delete from ends`;
    const out = await transaction(db, async (tx) => {
      await tx.execute(sql`insert into ends (id, n) values ('a', 1)`);
      const sent = sendInOrder(tx, [sql`insert into ends (id, n) values (${'b'}, ${1})`, sql`select 1 / ${0}::int`, sql`insert into ends (id, n) values (${'c'}, ${1})`]);
      sent.catch(() => {});
      return { sent };
    });
    await assert.rejects(out.sent, (err: { code?: string }) => err.code === '22012');
    assert.deepEqual(await rows(), []);
    // The connection went back to the pool usable: the next transaction commits.
    await transaction(db, async (tx) => void (await tx.execute(sql`insert into ends (id, n) values ('d', 1)`)));
    assert.deepEqual((await rows()).map((r) => r.id), ['d']);
  });

  it('sends a transaction whole in one write: BEGIN, its statements and COMMIT, past 1 KB too (transactionWhole)', async () => {
    await client`delete from ends`;
    // 3 KB of parameters: postgres.js, unpatched, wrote at 1 KB and sent the COMMIT apart.
    const long = 'x'.repeat(3000);
    const whole = (id: string) =>
      transactionWhole<{ n: number }>(db, [sql`insert into ends (id, n) values (${id}, length(${long}))`, sql`update ends set n = n + 1 where id = ${id} returning n`]);
    // (A statement's first run asks the server for its parameters' types first: a round trip of its own.)
    await whole('z');
    await client`delete from ends`;
    const writes = writesTo(client);
    const rows = await whole('a');
    const count = writes.stop();
    assert.deepEqual([...rows[1]!], [{ n: 3001 }]);
    assert.equal(count, 1, 'one write to the server');
    assert.deepEqual((await rows_()).map((r) => [r.id, r.n]), [['a', 3001]]);
  });

  it('rolls a transaction sent whole back when one statement fails, and reports its error', async () => {
    await client`delete from ends`;
    await assert.rejects(
      transactionWhole(db, [sql`insert into ends (id, n) values (${'a'}, ${1})`, sql`select 1 / ${0}::int`, sql`insert into ends (id, n) values (${'b'}, ${1})`]),
      (err: { code?: string }) => err.code === '22012',
    );
    assert.deepEqual(await rows_(), []);
  });

  it('is refused outside such a transaction (PGlite, a savepoint, the database itself)', async () => {
    assert.equal(endsPipelined(db), false);
    await assert.rejects(sendInOrder(db, [sql`select 1`]), /not in a pipelined transaction/);
  });
});
