import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from './client';

/** The rows of a raw SQL statement on either driver (postgres.js answers an array, PGlite `{rows}`). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * A list as one array parameter (`text[]` or `int[]`). drizzle's `sql` template expands a JS
 * array into a tuple of parameters; these are ids and numbers, never containing a comma.
 */
export const textArray = (values: readonly string[]): SQL => sql`string_to_array(${values.join(',')}, ',')::text[]`;
export const intArray = (values: readonly number[]): SQL => sql`string_to_array(${values.join(',')}, ',')::int[]`;

/**
 * Several data-modifying statements (inserts, updates) as one statement: each in a WITH, run
 * exactly once whether read or not, then `select` of `signals` (NOTIFY calls, delivered at the
 * commit). Foreign keys are checked at the statement's end, so a row may reference one inserted
 * beside it. One statement instead of several: each costs a round of parse, plan and protocol.
 */
export function writeAll(writes: SQL[], signals: SQL[] = []): SQL {
  const parts = sql.join(
    writes.map((w, i) => sql`${sql.raw(`w${i}`)} as (${w})`),
    sql`, `,
  );
  return sql`with ${parts} select ${signals.length > 0 ? sql.join(signals, sql`, `) : sql`1`}`;
}

const dialect = new PgDialect();

/**
 * A fragment with no parameters, rendered to its text once: a statement built on a hot path
 * embeds it as one chunk instead of walking its parts again on every call.
 */
export function frozen(fragment: SQL): SQL {
  const query = dialect.sqlToQuery(fragment);
  if (query.params.length > 0) throw new Error(`a frozen fragment has parameters: ${query.sql}`);
  return sql.raw(query.sql);
}
