import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { queryRows } from '../../db/rows';
import { bareTestDatabase, DB_KIND } from '../../test/harness';
import { ApiError, notFound } from './errors';
import { groupedTransaction } from './grouped';

// Transactions in groups (grouped.ts): on PostgreSQL the callers who ask at once share one
// transaction, each with its own result; a caller refused by its own check gets its refusal and
// the others commit; a failed statement fails its own caller alone. On PGlite each runs alone.

let database: Database;
let cleanup: () => Promise<void>;
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
  await database.db.execute(sql`create table grouped_rows (id text primary key, txid bigint not null)`);
});
after(async () => cleanup?.());

const db = () => database.db;
const write = (id: string) => (tx: typeof database.db) =>
  queryRows<{ txid: string }>(tx, sql`insert into grouped_rows (id, txid) values (${id}, txid_current()) returning txid::text`).then(([r]) => ({ id, txid: r!.txid }));
const stored = async (ids: string[]) =>
  (await queryRows<{ id: string; txid: string }>(db(), sql`select id, txid::text from grouped_rows order by id`)).filter((r) => ids.includes(r.id));

describe('transactions in groups', () => {
  it('callers asking at once each get their own result; on PostgreSQL they share one transaction', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `a${i}`);
    const out = await Promise.all(ids.map((id) => groupedTransaction(db(), 'ws', write(id))));
    assert.deepEqual(out.map((o) => o.id), ids);
    const rows = await stored(ids);
    assert.equal(rows.length, 6);
    const txids = new Set(rows.map((r) => r.txid));
    if (DB_KIND === 'postgres') assert.ok(txids.size < rows.length, `shared (${txids.size} transactions for ${rows.length})`);
    else assert.equal(txids.size, rows.length, 'PGlite: each alone');
  });

  it('one tenant’s flood does not put another’s transaction behind its backlog', { skip: DB_KIND !== 'postgres' && 'groups on PostgreSQL only' }, async () => {
    // 40 of tenant A asked first, then one of B: B goes in the first group, with A's first.
    const flood = Array.from({ length: 40 }, (_, i) => groupedTransaction(db(), 'A', write(`f${String(i).padStart(2, '0')}`)));
    const other = groupedTransaction(db(), 'B', write('fb'));
    const [a, b] = [await Promise.all(flood), await other];
    assert.equal(b.txid, a[0]!.txid, 'B shares the first group');
    assert.notEqual(a[39]!.txid, a[0]!.txid, 'A’s backlog spills into the next group');
  });

  it('a caller refused by its own check (before writing) gets its refusal, and the others commit in the same group', async () => {
    const ids = ['b0', 'b1', 'b2', 'b3'];
    const out = await Promise.allSettled(
      ids.map((id) =>
        groupedTransaction(db(), 'ws', async (tx) => {
          if (id === 'b2') throw notFound('thing', id);
          return write(id)(tx);
        }),
      ),
    );
    assert.deepEqual(out.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.ok((out[2] as PromiseRejectedResult).reason instanceof ApiError);
    const rows = await stored(ids);
    assert.deepEqual(rows.map((r) => r.id), ['b0', 'b1', 'b3']);
    if (DB_KIND === 'postgres') assert.equal(new Set(rows.map((r) => r.txid)).size, 1, 'no one ran again for the refusal');
  });

  it('a failed statement fails its own caller alone; the others commit', async () => {
    const ids = ['c0', 'c1', 'c2'];
    const out = await Promise.allSettled([
      groupedTransaction(db(), 'ws', write('c0')),
      groupedTransaction(db(), 'ws', async (tx) => {
        await write('c1')(tx);
        return queryRows(tx, sql`select * from no_such_table`);
      }),
      groupedTransaction(db(), 'ws', write('c2')),
    ]);
    assert.deepEqual(out.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((out[1] as PromiseRejectedResult).reason), /no_such_table/);
    assert.deepEqual((await stored(ids)).map((r) => r.id), ['c0', 'c2']);
  });
});
