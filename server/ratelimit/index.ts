import { Redis } from 'ioredis';
import {
  RateLimiterDrizzle,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Database } from '../../db/client';
import { rateLimits } from '../../db/schema';
import type { VerifiedKey } from '../keys/service';
import { consume, type Decision } from './limiter';
import { limitsFor } from './plans';

// Where the counters live (DESIGN.md 2): in memory when one process owns everything
// (embedded PGlite), in Redis when REDIS_URL is set, otherwise in PostgreSQL.
export type StoreKind = 'memory' | 'redis' | 'postgres';

export interface RateLimits {
  store: StoreKind;
  /** One request by a verified key, against its plan's minute and day windows. */
  forKey(key: VerifiedKey): Promise<Decision>;
  /** One request that identified no valid key, against the per-address guard. */
  forAddress(address: string): Promise<Decision>;
  close(): Promise<void>;
}

// The store only counts; limits are compared in limiter.ts, so the store's own cap is never hit.
const UNCAPPED = 2 ** 31 - 1;

export function createRateLimits(opts: {
  database: Database;
  redisUrl?: string;
  anonPerMinute: number;
}): RateLimits {
  let store: StoreKind;
  let redis: Redis | undefined;
  let counter: (keyPrefix: string, duration: number) => RateLimiterAbstract;
  if (opts.redisUrl) {
    store = 'redis';
    redis = new Redis(opts.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 2 });
    const client = redis;
    counter = (keyPrefix, duration) =>
      new RateLimiterRedis({ storeClient: client, keyPrefix, points: UNCAPPED, duration });
  } else if (opts.database.kind === 'postgres') {
    store = 'postgres';
    counter = (keyPrefix, duration) =>
      new RateLimiterDrizzle({ storeClient: opts.database.db, schema: rateLimits, keyPrefix, points: UNCAPPED, duration });
  } else {
    store = 'memory';
    counter = (keyPrefix, duration) => new RateLimiterMemory({ keyPrefix, points: UNCAPPED, duration });
  }
  const minute = counter('rl:key:min', 60);
  const day = counter('rl:key:day', 86_400);
  const address = counter('rl:addr:min', 60);

  return {
    store,
    forKey(key) {
      const limits = limitsFor(key.plan, key.customRpm);
      return consume(key.keyId, [
        { name: 'minute', limit: limits.perMinute, counter: minute },
        ...(limits.perDay === null ? [] : [{ name: 'day' as const, limit: limits.perDay, counter: day }]),
      ]);
    },
    forAddress(addr) {
      return consume(addr, [{ name: 'minute', limit: opts.anonPerMinute, counter: address }]);
    },
    async close() {
      await redis?.quit().catch(() => {});
    },
  };
}
