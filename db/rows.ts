import { sql, type SQL } from 'drizzle-orm';
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
