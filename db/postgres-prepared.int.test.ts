// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql as dsql } from 'drizzle-orm';
import type postgres from 'postgres';
import { DB_KIND } from '../test/harness';
import { drizzleOnTestDatabase } from '../test/drizzle-postgres';
import { MAX_PREPARED_PARAMS } from './postgres-prepared';
import { transaction } from './transaction';
import { pgTable, text, integer } from 'drizzle-orm/pg-core';
import type { Db } from './client';

// drizzle's statements on PostgreSQL are named prepared statements (db/postgres-prepared.ts): one
// round trip a run instead of two. On one connection (max 1) the server's pg_prepared_statements
// shows what was prepared: a statement with parameters, in and out of transactions; not one with
// more than MAX_PREPARED_PARAMS; and a prepared statement follows a schema change.

const things = pgTable('prep_things', { id: text('id').primaryKey(), n: integer('n').notNull() });

describe('drizzle statements are prepared on PostgreSQL', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, () => {
  let client: postgres.Sql;
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    ({ client, db, close } = await drizzleOnTestDatabase(1, (c) => c`create table prep_things (id text primary key, n integer not null)`));
  });
  after(async () => {
    await close?.();
  });

  const preparedTexts = async () => (await client`select statement from pg_prepared_statements`).map((r) => String(r.statement));

  it('prepares a statement with parameters once, and runs it again without preparing it anew', async () => {
    await db.insert(things).values({ id: 'a', n: 1 });
    for (let i = 0; i < 3; i++) assert.equal((await db.select().from(things).where(eq(things.id, 'a')))[0]!.n, 1);
    const texts = await preparedTexts();
    assert.equal(texts.filter((t) => t.includes('from "prep_things" where "prep_things"."id" = $1')).length, 1);
    assert.ok(texts.some((t) => t.startsWith('insert into "prep_things"')));
  });

  it('prepares inside a transaction too (db/transaction.ts and drizzle’s own)', async () => {
    await transaction(db, async (tx) => {
      await tx.update(things).set({ n: 2 }).where(eq(things.id, 'a'));
    });
    await db.transaction(async (tx) => {
      await tx.update(things).set({ n: 3 }).where(eq(things.id, 'a'));
      await tx.transaction(async (inner) => inner.update(things).set({ n: 4 }).where(eq(things.id, 'a')));
    });
    const texts = await preparedTexts();
    assert.equal(texts.filter((t) => t.startsWith('update "prep_things" set "n" = $1')).length, 1);
    assert.equal((await db.select().from(things))[0]!.n, 4);
  });

  it('gives every client one `unsafe`: the pool’s, a transaction’s, a reserved connection’s (no function made per client)', async () => {
    const shared = (db as unknown as { session: { client: { unsafe: unknown } } }).session.client.unsafe;
    let inTx: unknown;
    await db.transaction(async (tx) => {
      inTx = (tx as unknown as { session: { client: { unsafe: unknown } } }).session.client.unsafe;
    });
    const reserved = await (db as unknown as { session: { client: postgres.Sql } }).session.client.reserve();
    try {
      assert.equal(inTx, shared);
      assert.equal(reserved.unsafe, shared);
      assert.equal((await reserved.unsafe('select $1::int as n', [7]))[0]!.n, 7);
    } finally {
      reserved.release();
    }
  });

  it(`leaves a statement with over ${MAX_PREPARED_PARAMS} parameters unprepared`, async () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `bulk${i}`, n: i }));
    await db.insert(things).values(rows);
    assert.ok(!(await preparedTexts()).some((t) => t.includes('($79, $80)')));
    assert.equal((await db.select({ c: dsql<number>`count(*)::int` }).from(things))[0]!.c, 41);
  });

  it('a prepared statement follows a schema change (postgres.js prepares it again)', async () => {
    const read = async () => ((await db.execute(dsql`select * from prep_things where id = ${'a'}`)) as unknown as Record<string, unknown>[])[0]!;
    assert.deepEqual(Object.keys(await read()), ['id', 'n']);
    await client`alter table prep_things add column note text`;
    assert.deepEqual(Object.keys(await read()), ['id', 'n', 'note']);
  });
});
