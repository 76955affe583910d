import { closeDatabase, initDatabase, type Database } from '../db/client';
import { DataDirLockedError } from '../db/lock';
import { migrateDatabase } from '../db/migrate';
import { env } from './env.js';
import { createRateLimits, getRateLimits, RATE_LIMITS, type RateLimits } from './ratelimit';
import { setSingleton } from './registry';
import { resolveAuthSecret } from './secrets';

// Start-up shared by the server, the tests and the admin CLI: secrets, database, migrations, limiter.

export interface Runtime {
  database: Database;
  limits: RateLimits;
}

/** The next-auth secret for this process (next-auth, inside Next's bundle, reads process.env). */
export function provideAuthSecret(): void {
  const secret = resolveAuthSecret({
    authSecret: env.AUTH_SECRET,
    dataDir: env.DATA_DIR,
    embedded: !env.DATABASE_URL,
    production: env.NODE_ENV === 'production',
  });
  process.env.NEXTAUTH_SECRET = secret;
  process.env.AUTH_SECRET = secret;
}

/** Opens the database (taking the data-dir lock in embedded mode) and applies pending migrations. */
export async function openMigratedDatabase(): Promise<Database> {
  const database = await initDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR });
  await migrateDatabase(database);
  return database;
}

export async function openRuntime(): Promise<Runtime> {
  const database = await openMigratedDatabase();
  let limits = getRateLimits();
  if (!limits) {
    limits = createRateLimits({
      database,
      redisUrl: env.REDIS_URL,
      anonPerMinute: env.RATE_LIMIT_ANON_PER_MINUTE,
      signUpsPerHour: env.RATE_LIMIT_SIGNUPS_PER_HOUR,
    });
    setSingleton(RATE_LIMITS, limits);
  }
  await limits.ready();
  return { database, limits };
}

export async function closeRuntime(runtime: Runtime): Promise<void> {
  await runtime.limits.close();
  await closeDatabase();
}

/** A plain sentence for the error people will meet most: the data dir is in use. */
export function describeStartupError(err: unknown): string {
  if (err instanceof DataDirLockedError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
