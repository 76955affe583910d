import type { Database } from '../../db/client';
import { createAuthGuards, type AuthGuards } from '../auth/guards';
import type { VerifiedKey } from '../keys/service';
import { consume, type Decision } from './limiter';
import { limitsFor } from './plans';
import { memoryStore, type Store, type StoreKind } from './store';
import { postgresStore } from './store-postgres';
import { redisStore } from './store-redis';

export type { StoreKind } from './store';

export interface RateLimits {
  store: StoreKind;
  /** One request by a verified key, against its plan's minute and day windows. */
  forKey(key: VerifiedKey): Promise<Decision>;
  /** One request that identified no valid key, against the per-address guard. */
  forAddress(address: string): Promise<Decision>;
  /** The dashboard's sign-in and sign-up brute-force guards. */
  auth: AuthGuards;
  /** Resolves once the shared store is connected (or after `timeoutMs`, counting in memory meanwhile). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Memory when one process owns everything (embedded PGlite), Redis when REDIS_URL is set,
 * otherwise PostgreSQL. If the shared store is unreachable, each process counts in memory until
 * it is back: limits become per process for that time instead of every request failing.
 */
function openStore(opts: { database: Database; redisUrl?: string }): Store {
  if (opts.redisUrl) return redisStore(opts.redisUrl);
  if (opts.database.kind === 'postgres') return postgresStore(opts.database.sql!);
  return memoryStore();
}

export function createRateLimits(opts: {
  database: Database;
  redisUrl?: string;
  anonPerMinute: number;
  signUpsPerHour?: number;
}): RateLimits {
  const store = openStore(opts);
  const address = store.counter('rl:addr:min', 60);

  return {
    store: store.kind,
    forKey(key) {
      const limits = limitsFor(key.plan, key.customRpm);
      return store.chargeKey(key.keyId, limits.perMinute, limits.perDay);
    },
    forAddress(addr) {
      return consume(addr, [{ name: 'minute', limit: opts.anonPerMinute, counter: address }]);
    },
    auth: createAuthGuards(store.counter, { signUpsPerHour: opts.signUpsPerHour }),
    ready: (timeoutMs = 5_000) => store.ready(timeoutMs),
    close: () => store.close(),
  };
}
