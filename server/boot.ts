import { closeDatabase, initDatabase, type Database } from '../db/client';
import { DataDirLockedError } from '../db/lock';
import { migrateDatabase } from '../db/migrate';
import { env } from './env.js';
import { createRateLimits, type RateLimits } from './ratelimit';
import { peekSingleton, setSingleton } from './registry';
import { resolveAuthSecret } from './secrets';

// Start-up shared by the server and the admin CLI: secrets, database, migrations, limiter.

export interface Runtime {
  database: Database;
  limits: RateLimits;
}

export async function openRuntime(): Promise<Runtime> {
  const secret = resolveAuthSecret({
    authSecret: env.AUTH_SECRET,
    dataDir: env.DATA_DIR,
    embedded: !env.DATABASE_URL,
    production: env.NODE_ENV === 'production',
  });
  // next-auth (inside Next's bundle, same process) reads these.
  process.env.NEXTAUTH_SECRET = secret;
  process.env.AUTH_SECRET = secret;

  const database = await initDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR });
  await migrateDatabase(database);
  let limits = peekSingleton<RateLimits>('ratelimits');
  if (!limits) {
    limits = createRateLimits({ database, redisUrl: env.REDIS_URL, anonPerMinute: env.RATE_LIMIT_ANON_PER_MINUTE });
    setSingleton('ratelimits', limits);
  }
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
