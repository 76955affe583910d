import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { Db } from '../db/client';
import { preparing } from '../db/postgres-prepared';
import { markPostgres } from '../db/transaction';
import { createTestDatabase } from './harness';

/**
 * An empty PostgreSQL test database of its own, `setup` run on it, and a drizzle `Db` over it
 * built as the service builds one (prepared statements, db/transaction.ts's transactions) on a
 * client of `max` connections, for tests of db/ that need no server.
 */
export async function drizzleOnTestDatabase(max: number, setup: (client: postgres.Sql) => Promise<unknown>): Promise<{ client: postgres.Sql; db: Db; close(): Promise<void> }> {
  const made = await createTestDatabase({ empty: true });
  const client = postgres(made.url, { max, onnotice: () => {} });
  await setup(client);
  const prepared = preparing(client);
  const db = drizzle(prepared) as unknown as Db;
  markPostgres(db, prepared);
  return {
    client,
    db,
    close: async () => {
      await client.end({ timeout: 5 });
      await made.drop();
    },
  };
}
