import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { groupedBy } from '../batches';
import { consume, decideGroup, type Decision, type GroupCounts, type Window } from './limiter';

// Where the counters live (docs/api.md, "Many processes, one service"): in memory when one
// process owns everything (embedded PGlite), in Redis when REDIS_URL is set, otherwise in
// PostgreSQL.
export type StoreKind = 'memory' | 'redis' | 'postgres';

/** A named counter over a window of `durationSeconds` (the sign-in and sign-up guards count with it). */
export type CounterFactory = (keyPrefix: string, durationSeconds: number) => RateLimiterAbstract;

/** A row of `lookUpAndCharge`'s statement: the lookup's own columns, then the counts. */
export interface LookedUpRow {
  per_minute: number;
  per_day: number | null;
  m: number | null;
  m_ms: number | null;
  d: number | null;
  d_ms: number | null;
}

export interface Store {
  kind: StoreKind;
  /** Counters for the guards (per address, sign-in, sign-up), with atomic consume/reward/delete. */
  counter: CounterFactory;
  /**
   * Counts one request of an API key against its minute window and, unless `perDay` is null,
   * its day window, by the rules of `consume` (limiter.ts).
   */
  chargeKey(keyId: string, perMinute: number, perDay: number | null): Promise<Decision>;
  /**
   * PostgreSQL only: a key looked up and charged in one statement made by `lookUpAndCharge`
   * (store-postgres.ts), `param` its `$1`. Null when the lookup found no row; `decision` null
   * when the row was not charged (a key that may not be used). Throws when the statement fails
   * (the caller looks up and charges in two steps then).
   */
  lookUpAndChargeKey?<R extends LookedUpRow>(statement: string, param: string): Promise<{ row: R; decision: Decision | null } | null>;
  /** Resolves once the store answers, or after `timeoutMs` (counting in memory meanwhile). */
  ready(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

// The store only counts; limits are compared in limiter.ts, so a counter's own cap is never hit.
export const UNCAPPED = 2 ** 31 - 1;

export const KEY_MINUTE = 'rl:key:min';
export const KEY_DAY = 'rl:key:day';

export const memoryCounter = (keyPrefix: string, duration: number): RateLimiterAbstract =>
  new RateLimiterMemory({ keyPrefix, points: UNCAPPED, duration });

/** Counts in this process only: the embedded set-up, and every shared store's fallback while it is down. */
export function memoryStore(): Store {
  const minute = memoryCounter(KEY_MINUTE, 60);
  const day = memoryCounter(KEY_DAY, 86_400);
  return {
    kind: 'memory',
    counter: memoryCounter,
    chargeKey(keyId, perMinute, perDay) {
      const windows: Window[] = [{ name: 'minute', limit: perMinute, counter: minute }];
      if (perDay !== null) windows.push({ name: 'day', limit: perDay, counter: day });
      return consume(keyId, windows);
    },
    async ready() {},
    async close() {},
  };
}

/**
 * `chargeKey` for a shared store whose `charge` counts `n` requests of a key in one atomic step:
 * a key's requests made while one of its charges is under way go together in the next
 * (groupedBy), each answered by `decideGroup`; counted by `fallback` (memory) when the store fails.
 */
export function groupedChargeKey(
  charge: (keyId: string, perMinute: number, perDay: number | null, n: number) => Promise<GroupCounts>,
  fallback: Store,
): Store['chargeKey'] {
  const charges = groupedBy(async (_: string, calls: { keyId: string; perMinute: number; perDay: number | null }[]) => {
    const { keyId, perMinute, perDay } = calls[0]!;
    return decideGroup(await charge(keyId, perMinute, perDay, calls.length), calls.length, perMinute, perDay);
  });
  return async (keyId, perMinute, perDay) => {
    try {
      return await charges(`${keyId}\0${perMinute}\0${perDay}`, { keyId, perMinute, perDay });
    } catch {
      return fallback.chargeKey(keyId, perMinute, perDay);
    }
  };
}
