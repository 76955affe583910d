import type { SQL } from 'drizzle-orm';
import { PgTransaction, type PgDialect } from 'drizzle-orm/pg-core';
import { PgliteSession, PgliteTransaction } from 'drizzle-orm/pglite';
import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import { isPglite } from './advisory';
import type { Db } from './client';

// Transactions in one round trip fewer. postgres.js's `begin()` waits for BEGIN to be answered
// before it runs the first statement; here BEGIN goes out with the transaction's first
// statements (pipelined on a reserved connection), which saves a round trip per transaction on
// the hot paths (an execution's start and end). On PGlite (one connection, in process) and
// inside a transaction already (a savepoint), it is drizzle's own `transaction`.

const RAW = Symbol.for('aas.db.raw');
/** A transaction's reserved connection, on the transaction object (`sendInOrder`). */
const CONNECTION = Symbol('aas.db.connection');

/** Marks the root Db of a PostgreSQL database with its postgres.js client (db/client.ts). */
export function markPostgres(db: Db, sql: postgres.Sql): void {
  (db as unknown as Record<symbol, postgres.Sql>)[RAW] = sql;
}

/** Whether `db` is a transaction already under way (drizzle's, on either database): `transaction(db, …)` is then a savepoint. */
export const inTransaction = (db: Db): boolean => (db as unknown) instanceof PgTransaction;

/** Whether `transaction(db, …)` reserves a connection of a PostgreSQL pool (a root Db: not PGlite, not a transaction). */
export const reservesConnection = (db: Db): boolean => (db as unknown as Record<symbol, unknown>)[RAW] !== undefined;

export async function transaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  const sql = (db as unknown as Record<symbol, postgres.Sql | undefined>)[RAW];
  if (!sql) return db.transaction(fn);
  const conn = withSavepoints(await sql.reserve());
  try {
    const begun = conn.unsafe('begin').execute();
    let result: T;
    try {
      // What drizzle's own transaction builds around postgres.js's transaction connection.
      const root = db as unknown as { dialect: never; session: { schema: never; options: never }; _: { schema: never } };
      const session = new PostgresJsSession(conn as never, root.dialect, root.session.schema, root.session.options);
      const tx = new PostgresJsTransaction(root.dialect, session, root.session.schema) as unknown as Db;
      (tx as unknown as Record<symbol, postgres.ReservedSql>)[CONNECTION] = conn;
      result = await fn(tx);
    } catch (err) {
      await begun.catch(() => {});
      await conn.unsafe('rollback').catch(() => {});
      throw err;
    }
    // The COMMIT goes out at once, without waiting for BEGIN's answer: a callback whose
    // statements all went out unawaited (`sendInOrder`) is then one write and one round trip.
    // Had BEGIN failed, its error is the transaction's (and the COMMIT's, outside any, is moot).
    const committed = conn.unsafe('commit').execute();
    try {
      await begun;
    } catch (err) {
      await committed.catch(() => {});
      throw err;
    }
    await committed;
    return result;
  } finally {
    conn.release();
  }
}

/**
 * `fn` as one step that nobody else's statements interleave with, for a callback that reads and
 * then writes in **one** statement (a start of a new conversation: docs/executions.md). On PGlite
 * it holds the database without BEGIN and COMMIT (two calls into the database fewer: the write
 * commits as it runs, all or nothing, and what it was decided on cannot change before it, since
 * PGlite runs one caller at a time). Elsewhere (PostgreSQL, or inside a transaction already) it
 * is `transaction`. `fn` must not open a transaction of its own (a savepoint needs one).
 */
export async function alone<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (!isPglite(db) || inTransaction(db)) return transaction(db, fn);
  // The embedded database's client as db/pglite-parsers.ts `forDrizzle` gives it to drizzle.
  const root = db as unknown as { dialect: never; session: { client: { exclusive: <R>(fn: (client: never) => Promise<R>) => Promise<R> }; schema: never; options: never } };
  const { client, schema, options } = root.session;
  return client.exclusive((c) => fn(new PgliteTransaction(root.dialect, new PgliteSession(c, root.dialect, schema, options), schema) as unknown as Db));
}

const connectionOf = (tx: Db) => (tx as unknown as Record<symbol, postgres.ReservedSql | undefined>)[CONNECTION];

/**
 * Whether `tx` may end with statements it does not await: on PostgreSQL, statements sent with
 * `sendInOrder` go out before the COMMIT that `transaction` sends once the callback returns, and
 * a failed one makes that COMMIT roll the whole transaction back. On PGlite, and in a savepoint,
 * every statement must be awaited before the callback returns.
 */
export const endsPipelined = (tx: Db): boolean => connectionOf(tx) !== undefined;

/**
 * Sends `statements` on the transaction's connection in this order, each handed to postgres.js
 * now: it queues a query one microtask after it is executed, in the order executed, so that the
 * COMMIT `transaction` sends after the callback returns cannot overtake them (drizzle's own
 * `execute` hands its query on a few microtasks later, an order nothing guarantees). Resolves
 * with their rows once all were answered; rejects with the first error. Only where `endsPipelined`.
 */
export function sendInOrder(tx: Db, statements: SQL[]): Promise<unknown[]> {
  const conn = connectionOf(tx);
  if (!conn) return Promise.reject(new Error('sendInOrder: not in a pipelined transaction (endsPipelined)'));
  const dialect = (tx as unknown as { dialect: PgDialect }).dialect;
  return Promise.all(
    statements.map((statement) => {
      const query = dialect.sqlToQuery(statement);
      return conn.unsafe(query.sql, query.params as never[]).execute();
    }),
  );
}

/**
 * `statements` as one transaction sent whole: on PostgreSQL BEGIN, the statements in their order
 * and COMMIT go out in one write, so a lock they take is held only while the server runs them,
 * never across a turn of this process's busy loop (a stream's lease, under its workspace's lock:
 * server/platform/streams/guard.ts). Elsewhere (PGlite, inside a transaction already) each is
 * awaited in turn in `transaction`. Resolves with each statement's rows; a statement that failed
 * rolled them all back, and its error is the rejection.
 */
export async function transactionWhole<T = Record<string, unknown>>(db: Db, statements: SQL[]): Promise<T[][]> {
  const rowsOf = (result: unknown) => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  const out = await transaction(db, async (tx): Promise<{ rows: T[][] } | { sent: Promise<unknown[]> }> => {
    if (!endsPipelined(tx)) {
      const rows: T[][] = [];
      for (const statement of statements) rows.push(rowsOf(await tx.execute(statement)));
      return { rows };
    }
    const sent = sendInOrder(tx, statements);
    sent.catch(() => {}); // awaited below, after the COMMIT; never unhandled meanwhile
    return { sent };
  });
  return 'rows' in out ? out.rows : (await out.sent).map(rowsOf);
}

/**
 * A transaction inside this one (drizzle's `tx.transaction`, or `transaction(tx, …)`) is a
 * savepoint: drizzle asks the session's client for `savepoint(cb)`, which postgres.js gives its
 * own transactions but not a reserved connection, so the connection gets one here.
 */
function withSavepoints(conn: postgres.ReservedSql): postgres.ReservedSql {
  let next = 0;
  const savepoint = async <T>(cb: (client: postgres.ReservedSql) => Promise<T>): Promise<T> => {
    const name = `s${++next}`;
    await conn.unsafe(`savepoint ${name}`);
    try {
      const result = await cb(conn);
      await conn.unsafe(`release savepoint ${name}`);
      return result;
    } catch (err) {
      await conn.unsafe(`rollback to savepoint ${name}`);
      throw err;
    }
  };
  return Object.assign(conn, { savepoint });
}
