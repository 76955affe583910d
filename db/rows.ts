import type { SQL } from 'drizzle-orm';
import type { Db } from './client';

/** The rows of a raw SQL statement on either driver (postgres.js answers an array, PGlite `{rows}`). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
