import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database } from './client';

export const MIGRATIONS_FOLDER = path.resolve(process.cwd(), 'db/migrations');
// Any fixed number: serialises migrations when several processes start against one database.
export const MIGRATION_LOCK = 7_311_402_901;

/** Applies pending migrations. On PostgreSQL, under an advisory lock (many processes may start at once). */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(drizzlePglite(database.pglite!), { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  // One dedicated connection: the advisory lock belongs to the session that took it.
  const conn = postgres(database.url!, { max: 1, onnotice: () => {} });
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(drizzlePostgres(conn), { migrationsFolder: MIGRATIONS_FOLDER });
    await conn`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await conn.end({ timeout: 5 });
  }
}

function expectedMigrationCount(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/** For /readyz: the database answers and every migration in the folder has been applied. */
export async function checkReady(database: Database): Promise<{ ok: boolean; reason?: string }> {
  try {
    const rows = (await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)) as unknown;
    const list = Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows;
    const applied = (list[0] as { n: number }).n;
    const expected = expectedMigrationCount();
    return applied >= expected ? { ok: true } : { ok: false, reason: `migrations pending (${applied}/${expected})` };
  } catch {
    return { ok: false, reason: 'database unreachable' };
  }
}
