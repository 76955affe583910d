// test: pglite — the embedded database itself, on no server: runs in the PGlite pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import type { Db } from './client';
import { Turns } from './lanes';
import { adoptDrizzleParsers, forDrizzle } from './pglite-parsers';
import { withPreparedStatements } from './pglite-prepared';
import { alone, transaction } from './transaction';

// Named prepared statements on an in-memory PGlite: the same rows and errors as PGlite's own
// `query`, each text parsed once, at most `max` kept, transactions as before, and a table
// changed under a kept statement. Then `alone` (db/transaction.ts) on the same instance, wired as
// db/client.ts wires it: the caller holds the database for several statements without BEGIN and
// COMMIT. Each of its rows records the transaction that wrote it, so statements that shared one
// would show.

let plain: PGlite;
let pg: PGlite;
let db: Db;
const rows = async () => (await plain.query<{ id: string; n: number; xact: string }>(`select id, n, xact::text from held order by seq`)).rows;
const named = async () => (await plain.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where not from_sql`)).rows[0]!.n;

before(async () => {
  plain = await PGlite.create();
  pg = withPreparedStatements(plain, 4);
  await plain.exec(`create table t (id text primary key, n int, b bigint, ok boolean, j json, jb jsonb, at timestamptz, tags text[], x double precision)`);
  await plain.exec(`create table held (seq serial, id text primary key, n int not null, xact bigint not null default txid_current())`);
});
after(() => plain.close());

describe('withPreparedStatements', () => {
  it('answers as PGlite’s own query does, for every kind of value, by object and by array', async () => {
    const insert = `insert into t values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`;
    const rows: unknown[][] = [
      ['a', 1, 9007199254740993n, true, JSON.stringify({ k: [1, 'é'] }), JSON.stringify({ z: null }), new Date('2026-11-27T01:02:03.456Z'), ['x', 'y,z', '"q"'], 1.5],
      ['b', null, null, false, null, null, null, [], -0.25],
    ];
    for (const values of rows) {
      const mine = await pg.query(insert, values);
      await plain.query(`delete from t where id = $1`, [values[0]]);
      const theirs = await plain.query(insert, values);
      assert.deepEqual(mine, theirs, 'rows, fields, command and counts');
    }
    const select = `select id, n, tags from t where id = any($1::text[]) order by id`;
    assert.deepEqual(await pg.query(select, [['a', 'b']], { rowMode: 'array' }), await plain.query(select, [['a', 'b']], { rowMode: 'array' }));
    // A parser of the query's own, and a column named __proto__ (an own property, as PGlite makes it).
    const own = { parsers: { 23: (v: string) => `int:${v}` } };
    const odd = `select $1::int as n, 'x' as "__proto__", 'y' as constructor`;
    for (let i = 0; i < 2; i++) assert.deepEqual(await pg.query(odd, [7], own), await plain.query(odd, [7], own));
    assert.equal(Object.getPrototypeOf((await pg.query<object>(odd, [7])).rows[0]), Object.prototype);
    assert.deepEqual((await pg.query(`select $1::text as s`, ['x'])).rows, [{ s: 'x' }]);
    // A statement without rows, asked twice (the second time from what its Describe kept).
    const touch = `update t set n = n where id = any($1::text[])`;
    for (let i = 0; i < 2; i++) {
      const mine = await pg.query(touch, [['a', 'b']]);
      const theirs = await plain.query(touch, [['a', 'b']]);
      assert.deepEqual(mine, theirs);
    }
  });

  it('sends every kind of text value as it is: empty, multi-byte, long, null', async () => {
    const values = ['', 'é😀', 'x'.repeat(100_000) + 'ü', null, 'a\nb\tc "q" \\'];
    const text = `select $1::text as a, $2::text as b, $3::text as c, $4::text as d, $5::text as e, octet_length($3::text) as n`;
    for (let i = 0; i < 2; i++) assert.deepEqual((await pg.query(text, values)).rows, (await plain.query(text, values)).rows);
    assert.equal(((await pg.query<{ n: number }>(text, values)).rows[0]!).n, 100_002);
  });

  it('counts more than 32,767 parameters as the database reads them', async () => {
    const n = 33_000;
    const text = `select array_length(array[${Array.from({ length: n }, (_, i) => `$${i + 1}::text`).join(',')}], 1) as n, $${n}::text as last`;
    const values = Array.from({ length: n }, (_, i) => `v${i}`);
    assert.deepEqual((await pg.query(text, values)).rows, [{ n, last: `v${n - 1}` }]);
  });

  it('parses a text once, and keeps at most `max` texts (the least recently used closed first)', async () => {
    await plain.exec(`deallocate all`);
    for (let i = 0; i < 3; i++) await pg.query(`select $1::int + 1 as v`, [i]);
    assert.equal(await named(), 1);
    for (let i = 0; i < 6; i++) assert.deepEqual((await pg.query(`select $1::int + ${i} as v`, [1])).rows, [{ v: 1 + i }]);
    assert.equal(await named(), 4);
  });

  it('gives the database’s errors with their codes, and the statement still works after', async () => {
    const insert = `insert into t (id, n) values ($1, $2)`;
    await pg.query(insert, ['dup', 1]);
    await assert.rejects(pg.query(insert, ['dup', 2]), (err: { code?: string }) => err.code === '23505');
    await pg.query(insert, ['dup2', 2]);
    await assert.rejects(pg.query(`selec nothing`), (err: { code?: string }) => err.code === '42601');
    await assert.rejects(pg.query(`select $1::int`, ['not a number']), (err: { code?: string }) => err.code === '22P02');
    assert.deepEqual((await pg.query(`select n from t where id = $1`, ['dup2'])).rows, [{ n: 2 }]);
    assert.ok((await named()) <= 4, 'a failed parse keeps no statement');
  });

  it('runs a transaction’s statements as named ones; a failure rolls it all back', async () => {
    await pg.transaction(async (tx) => {
      await tx.query(`insert into t (id, n) values ($1, $2)`, ['tx1', 1]);
      await tx.query(`update t set n = n + $2 where id = $1`, ['tx1', 1]);
    });
    assert.deepEqual((await pg.query(`select n from t where id = $1`, ['tx1'])).rows, [{ n: 2 }]);
    await assert.rejects(
      pg.transaction(async (tx) => {
        await tx.query(`insert into t (id, n) values ($1, $2)`, ['tx2', 1]);
        await tx.query(`insert into t (id, n) values ($1, $2)`, ['tx2', 1]);
      }),
      (err: { code?: string }) => err.code === '23505',
    );
    assert.deepEqual((await pg.query(`select count(*)::int as c from t where id = $1`, ['tx2'])).rows, [{ c: 0 }]);
  });

  it('parses a statement again when its table changed under it, or it was deallocated', async () => {
    const all = `select * from t where id = $1`;
    const before = (await pg.query<Record<string, unknown>>(all, ['a'])).rows[0]!;
    await plain.exec(`alter table t add column extra text default 'new'`);
    const afterwards = (await pg.query<Record<string, unknown>>(all, ['a'])).rows[0]!;
    assert.equal(afterwards.extra, 'new');
    assert.equal(afterwards.id, before.id);
    assert.deepEqual((await pg.query(all, ['a'])).fields, (await plain.query(all, ['a'])).fields, 'the new description kept');
    // Gone altogether (nothing of ours deallocates; the database may): prepared again.
    await plain.exec(`deallocate all`);
    assert.equal((await pg.query<Record<string, unknown>>(all, ['a'])).rows[0]!.id, 'a');
  });
});

describe('alone (PGlite)', () => {
  before(() => {
    adoptDrizzleParsers(plain);
    const turns = new Turns();
    db = drizzle(forDrizzle(pg, (call) => turns.run(call))) as unknown as Db;
  });

  it('runs each statement in a transaction of its own, and answers with the callback’s result', async () => {
    await plain.exec('delete from held');
    const out = await alone(db, async (tx) => {
      await tx.execute(sql`insert into held (id, n) values ('a', 1)`);
      await tx.execute(sql`insert into held (id, n) values ('b', 2)`);
      return 'done';
    });
    assert.equal(out, 'done');
    const found = await rows();
    assert.deepEqual(found.map((r) => r.id), ['a', 'b']);
    assert.notEqual(found[0]!.xact, found[1]!.xact, 'no BEGIN: each statement committed on its own');
    const inOne = await transaction(db, async (tx) => {
      await tx.execute(sql`insert into held (id, n) values ('c', 3)`);
      await tx.execute(sql`insert into held (id, n) values ('d', 4)`);
    });
    assert.equal(inOne, undefined);
    const [, , c, d] = await rows();
    assert.equal(c!.xact, d!.xact, 'a transaction still shares one');
  });

  it('lets nobody else’s statement run between its read and its write (check-then-act holds)', async () => {
    await plain.exec('delete from held');
    // Two callers each read the count and write count + 1 under the id 'x<count>': interleaved, both would write 'x0'.
    const step = () =>
      alone(db, async (tx) => {
        const [{ n }] = ((await tx.execute(sql`select count(*)::int as n from held`)) as unknown as { rows: [{ n: number }] }).rows;
        await new Promise((r) => setTimeout(r, 20));
        await tx.execute(sql`insert into held (id, n) values (${`x${n}`}, ${n})`);
      });
    const other = (async () => {
      await new Promise((r) => setTimeout(r, 5));
      await db.execute(sql`insert into held (id, n) values ('outsider', -1)`);
    })();
    await Promise.all([step(), step(), other]);
    assert.deepEqual(
      (await rows()).map((r) => r.id),
      ['x0', 'x1', 'outsider'],
      'the second caller and the outsider waited for the first to end',
    );
  });

  it('gives the database back after a failed statement, with nothing of that statement written', async () => {
    await plain.exec('delete from held');
    await assert.rejects(
      alone(db, async (tx) => {
        await tx.execute(sql`insert into held (id, n) values ('y', 1), ('z', null)`);
      }),
      (err: { code?: string; cause?: { code?: string } }) => (err.cause ?? err).code === '23502',
    );
    assert.deepEqual(await rows(), []);
    await db.execute(sql`insert into held (id, n) values ('after', 1)`);
    assert.deepEqual((await rows()).map((r) => r.id), ['after']);
  });

  it('is a savepoint of the transaction it is called in', async () => {
    await plain.exec('delete from held');
    await transaction(db, async (tx) => {
      await tx.execute(sql`insert into held (id, n) values ('p', 1)`);
      await alone(tx, (inner) => inner.execute(sql`insert into held (id, n) values ('q', 2)`));
    });
    const [p, q] = await rows();
    assert.equal(p!.xact, q!.xact);
  });
});
