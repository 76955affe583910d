import { sql, type SQL } from 'drizzle-orm';
import { PgliteSession } from 'drizzle-orm/pglite';
import type { Db } from './client';

// Transaction-level advisory locks, on either database. On PostgreSQL the lock is sent at once
// (a drizzle query starts only when something awaits it: callers pipeline the statements that
// must run under it right behind). On PGlite a transaction holds the one connection alone until
// it ends (db/lanes.ts: a transaction is one turn), so every transaction is serial already and
// the lock would be a statement that decides nothing: none is sent.

/** Whether `db` (a database or a transaction of it) is PGlite's. */
export const isPglite = (db: Db): boolean => (db as unknown as { session?: unknown }).session instanceof PgliteSession;

/** Holds the advisory lock `key` (an SQL expression of a bigint or an int) until the transaction ends. */
export function advisoryXactLock(tx: Db, key: SQL): Promise<unknown> {
  if (isPglite(tx)) return Promise.resolve();
  return tx.execute(sql`select pg_advisory_xact_lock(${key})`).then((r) => r);
}
