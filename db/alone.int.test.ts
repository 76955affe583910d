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

// `alone` on the embedded database, wired as db/client.ts wires it: the caller holds the database
// for several statements without BEGIN and COMMIT. Each row records the transaction that wrote
// it, so statements that shared one would show.

let pglite: PGlite;
let db: Db;
const rows = async () => (await pglite.query<{ id: string; n: number; xact: string }>(`select id, n, xact::text from t order by seq`)).rows;

before(async () => {
  pglite = await PGlite.create();
  adoptDrizzleParsers(pglite);
  const turns = new Turns();
  db = drizzle(forDrizzle(withPreparedStatements(pglite), (call) => turns.run(call))) as unknown as Db;
  await pglite.exec(`create table t (seq serial, id text primary key, n int not null, xact bigint not null default txid_current())`);
});
after(() => pglite.close());

describe('alone (PGlite)', () => {
  it('runs each statement in a transaction of its own, and answers with the callback’s result', async () => {
    await pglite.exec('delete from t');
    const out = await alone(db, async (tx) => {
      await tx.execute(sql`insert into t (id, n) values ('a', 1)`);
      await tx.execute(sql`insert into t (id, n) values ('b', 2)`);
      return 'done';
    });
    assert.equal(out, 'done');
    const found = await rows();
    assert.deepEqual(found.map((r) => r.id), ['a', 'b']);
    assert.notEqual(found[0]!.xact, found[1]!.xact, 'no BEGIN: each statement committed on its own');
    const inOne = await transaction(db, async (tx) => {
      await tx.execute(sql`insert into t (id, n) values ('c', 3)`);
      await tx.execute(sql`insert into t (id, n) values ('d', 4)`);
    });
    assert.equal(inOne, undefined);
    const [, , c, d] = await rows();
    assert.equal(c!.xact, d!.xact, 'a transaction still shares one');
  });

  it('lets nobody else’s statement run between its read and its write (check-then-act holds)', async () => {
    await pglite.exec('delete from t');
    // Two callers each read the count and write count + 1 under the id 'x<count>': interleaved, both would write 'x0'.
    const step = () =>
      alone(db, async (tx) => {
        const [{ n }] = ((await tx.execute(sql`select count(*)::int as n from t`)) as unknown as { rows: [{ n: number }] }).rows;
        await new Promise((r) => setTimeout(r, 20));
        await tx.execute(sql`insert into t (id, n) values (${`x${n}`}, ${n})`);
      });
    const other = (async () => {
      await new Promise((r) => setTimeout(r, 5));
      await db.execute(sql`insert into t (id, n) values ('outsider', -1)`);
    })();
    await Promise.all([step(), step(), other]);
    assert.deepEqual(
      (await rows()).map((r) => r.id),
      ['x0', 'x1', 'outsider'],
      'the second caller and the outsider waited for the first to end',
    );
  });

  it('gives the database back after a failed statement, with nothing of that statement written', async () => {
    await pglite.exec('delete from t');
    await assert.rejects(
      alone(db, async (tx) => {
        await tx.execute(sql`insert into t (id, n) values ('y', 1), ('z', null)`);
      }),
      (err: { code?: string; cause?: { code?: string } }) => (err.cause ?? err).code === '23502',
    );
    assert.deepEqual(await rows(), []);
    await db.execute(sql`insert into t (id, n) values ('after', 1)`);
    assert.deepEqual((await rows()).map((r) => r.id), ['after']);
  });

  it('is a savepoint of the transaction it is called in', async () => {
    await pglite.exec('delete from t');
    await transaction(db, async (tx) => {
      await tx.execute(sql`insert into t (id, n) values ('p', 1)`);
      await alone(tx, (inner) => inner.execute(sql`insert into t (id, n) values ('q', 2)`));
    });
    const [p, q] = await rows();
    assert.equal(p!.xact, q!.xact);
  });
});
