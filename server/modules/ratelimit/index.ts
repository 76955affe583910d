import type { Database } from '../../../db/client';
import type { Environment, Plan } from '../../../db/schema';
import { createAuthGuards, type AuthGuards } from '../auth/guards';
import type { VerifiedKey } from '../keys/service';
import { consume, type Decision } from '../../platform/ratelimit/limiter';
import { limitsFor, limitsSql } from './plans';
import { memoryStore, type LookedUpRow, type Store, type StoreKind } from '../../platform/ratelimit/store';
import { lookUpAndCharge, postgresStore } from '../../platform/ratelimit/store-postgres';
import { redisStore } from '../../platform/ratelimit/store-redis';

export type { StoreKind } from '../../platform/ratelimit/store';

/** The name the dashboard's counter of a workspace and environment is kept under (never a key id: those start `key_`). */
export const dashboardCounter = (workspaceId: string, environment: Environment) => `dash:${workspaceId}:${environment}`;

export interface RateLimits {
  store: StoreKind;
  /** One request by a verified key, against its plan's minute and day windows. */
  forKey(key: VerifiedKey): Promise<Decision>;
  /**
   * One dashboard mutation of a workspace in an environment, against the plan's minute and day
   * windows: a counter of its own, beside the workspace's keys (docs/decisions.md, "Dashboard").
   */
  forDashboard(workspaceId: string, environment: Environment, plan: Plan, customRpm: number | null): Promise<Decision>;
  /** One request that identified no valid key, against the per-address guard. */
  forAddress(address: string): Promise<Decision>;
  /**
   * One call of a costly dashboard read (`costly` in a procedure's meta, e.g. a schedule's
   * preview) by a signed-in user, against that procedure's own per-minute limit for the user.
   */
  forUserCall(procedure: string, userId: string, perMinute: number): Promise<Decision>;
  /**
   * PostgreSQL store only: the key `lookup` finds (a select of at most one row by `$1` with the
   * columns `id`, `plan`, `custom_rpm` and `charge`) and its request counted against its plan's
   * limits, in one statement (keys/verify-charged.ts). Absent with the other stores, which
   * charge after the lookup.
   */
  lookUpAndChargeKey?: <R extends LookedUpRow>(lookup: string, param: string) => Promise<{ row: R; decision: Decision | null } | null>;
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

/** The store's one-statement lookup and charge, with the limits read from the looked-up key's plan (plans.ts `limitsSql`). */
function withPlanLimits(run: NonNullable<Store['lookUpAndChargeKey']>): NonNullable<RateLimits['lookUpAndChargeKey']> {
  const { perMinute, perDay } = limitsSql('l');
  const statements = new Map<string, string>();
  return (lookup, param) => {
    let statement = statements.get(lookup);
    if (statement === undefined) {
      statement = lookUpAndCharge(`select l.*, ${perMinute} as per_minute, ${perDay} as per_day from (${lookup}) l`);
      if (statements.size < 16) statements.set(lookup, statement);
    }
    return run(statement, param);
  };
}

export function createRateLimits(opts: {
  database: Database;
  redisUrl?: string;
  anonPerMinute: number;
  signUpsPerHour?: number;
}): RateLimits {
  const store = openStore(opts);
  const address = store.counter('rl:addr:min', 60);
  const userCalls = store.counter('rl:user:min', 60);

  return {
    store: store.kind,
    forKey(key) {
      const limits = limitsFor(key.plan, key.customRpm);
      return store.chargeKey(key.keyId, limits.perMinute, limits.perDay);
    },
    forDashboard(workspaceId, environment, plan, customRpm) {
      const limits = limitsFor(plan, customRpm);
      return store.chargeKey(dashboardCounter(workspaceId, environment), limits.perMinute, limits.perDay);
    },
    forAddress(addr) {
      return consume(addr, [{ name: 'minute', limit: opts.anonPerMinute, counter: address }]);
    },
    forUserCall(procedure, userId, perMinute) {
      return consume(`${procedure}:${userId}`, [{ name: 'minute', limit: perMinute, counter: userCalls }]);
    },
    lookUpAndChargeKey: store.lookUpAndChargeKey && withPlanLimits(store.lookUpAndChargeKey),
    auth: createAuthGuards(store.counter, { signUpsPerHour: opts.signUpsPerHour }),
    ready: (timeoutMs = 5_000) => store.ready(timeoutMs),
    close: () => store.close(),
  };
}
