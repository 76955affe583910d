import { Redis } from 'ioredis';
import {
  RateLimiterDrizzle,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Database } from '../../db/client';
import { createAuthGuards, type AuthGuards } from '../auth/guards';
import { rateLimits } from '../../db/schema';
import type { VerifiedKey } from '../keys/service';
import { consume, type Decision } from './limiter';
import { log } from '../log';
import { peekSingleton } from '../registry';
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
  /** The dashboard's sign-in and sign-up brute-force guards. */
  auth: AuthGuards;
  /** Resolves once the shared store is connected (or after `timeoutMs`, counting in memory meanwhile). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const RATE_LIMITS = 'ratelimits';

/** The process-wide limiter the server opened at start-up (undefined before that). */
export const getRateLimits = () => peekSingleton<RateLimits>(RATE_LIMITS);

// The store only counts; limits are compared in limiter.ts, so the store's own cap is never hit.
const UNCAPPED = 2 ** 31 - 1;

export function createRateLimits(opts: {
  database: Database;
  redisUrl?: string;
  anonPerMinute: number;
  signUpsPerHour?: number;
}): RateLimits {
  let store: StoreKind;
  let redis: Redis | undefined;
  let counter: (keyPrefix: string, duration: number) => RateLimiterAbstract;
  const memory = (keyPrefix: string, duration: number) =>
    new RateLimiterMemory({ keyPrefix, points: UNCAPPED, duration });
  // If the shared store fails (Redis or PostgreSQL unreachable), each process counts in memory
  // until it is back: limits become per process for that time instead of every request failing.
  if (opts.redisUrl) {
    store = 'redis';
    // No offline queue: while Redis is down, calls fail at once and the insurance counts.
    redis = new Redis(opts.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    let down = false;
    redis.on('error', (err: Error) => {
      if (!down) log.warn({ err: err.message }, 'redis unavailable: rate limits count per process until it is back');
      down = true;
    });
    redis.on('ready', () => {
      if (down) log.info('redis is back: rate limits are shared again');
      down = false;
    });
    const client = redis;
    counter = (keyPrefix, duration) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix,
        points: UNCAPPED,
        duration,
        insuranceLimiter: memory(keyPrefix, duration),
      });
  } else if (opts.database.kind === 'postgres') {
    store = 'postgres';
    counter = (keyPrefix, duration) =>
      new RateLimiterDrizzle({
        storeClient: opts.database.db,
        schema: rateLimits,
        keyPrefix,
        points: UNCAPPED,
        duration,
        insuranceLimiter: memory(keyPrefix, duration),
      });
  } else {
    store = 'memory';
    counter = memory;
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
    auth: createAuthGuards(counter, { signUpsPerHour: opts.signUpsPerHour }),
    async ready(timeoutMs = 5_000) {
      if (!redis || redis.status === 'ready') return;
      const client = redis;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        client.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async close() {
      if (redis?.status === 'ready') await redis.quit().catch(() => {});
      else redis?.disconnect();
    },
  };
}
