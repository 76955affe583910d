import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { bareTestDatabase } from '../test/harness';
import type { Database } from './client';
import { advisoryXactLock, isPglite } from './advisory';
import { transaction } from './transaction';

// An advisory lock serialises two transactions that take it, on either database: on PostgreSQL
// by the lock, on PGlite by the transaction itself (no statement is sent there).

let database: Database;
let close: () => Promise<void>;
before(async () => ({ database, close } = await bareTestDatabase()));
after(() => close?.());

describe('advisoryXactLock', () => {
  it('knows the database a transaction is of', async () => {
    assert.equal(isPglite(database.db), database.kind === 'pglite');
    await transaction(database.db, async (tx) => assert.equal(isPglite(tx), database.kind === 'pglite'));
  });

  it('lets one transaction at a time hold it: the second runs after the first commits', async () => {
    const order: string[] = [];
    const hold = (name: string, ms: number) =>
      transaction(database.db, async (tx) => {
        await advisoryXactLock(tx, sql`hashtext('advisory-test')`);
        order.push(`${name} in`);
        await new Promise((r) => setTimeout(r, ms));
        order.push(`${name} out`);
      });
    await Promise.all([hold('a', 150), new Promise((r) => setTimeout(r, 20)).then(() => hold('b', 0))]);
    assert.deepEqual(order, ['a in', 'a out', 'b in', 'b out']);
  });
});
