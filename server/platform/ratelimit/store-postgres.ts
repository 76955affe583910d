import type postgres from 'postgres';
import { RateLimiterRedis, RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { StoreHealth } from './health';
import { groupedBy } from '../batches';
import { decideGroup, type Decision } from './limiter';
import { groupedChargeKey, memoryCounter, memoryStore, UNCAPPED, type LookedUpRow, type Store } from './store';

// Rate limits in PostgreSQL, for a deployment scaled out without Redis. The tables are UNLOGGED
// (db/schema/ratelimit.ts), every statement is prepared and answers in one round trip, and the
// database's clock decides when windows end, so processes with skewed clocks agree.
//
// A key's two windows live in one row of rate_limit_windows and one statement charges both for
// `n` requests at once, as if one after the other by the rules of `consume` (limiter.ts), written
// as arithmetic on the counts before them (m0, d0; an expired window counts 0):
// - the first a = max(0, min(n, minute limit − m0, day limit − d0)) go through: both count them;
// - if the minute ran out (m0 + a ≥ its limit) it counts the rest, refused;
// - else the day ran out: it counts the rest, refused, and the minute does not.
// (`lm`, `ld`: the minute and day limits, ld null for no day window; `x - null` is null.)
// `decideGroup` (limiter.ts) reads each request's answer from the counts after.
const allowedOf = (m0: string, d0: string, lm: string, ld: string, n: string) => `greatest(0, least(${n}, ${lm} - ${m0}, coalesce(${ld} - ${d0}, ${n})))`;
const minutePoints = (m0: string, d0: string, lm: string, ld: string, n: string) =>
  `${m0} + case when ${m0} + ${allowedOf(m0, d0, lm, ld, n)} >= ${lm} then ${n} else ${allowedOf(m0, d0, lm, ld, n)} end`;
const dayPoints = (m0: string, d0: string, lm: string, ld: string, n: string) =>
  `${d0} + case when ${ld} is null then 0 when ${m0} + ${allowedOf(m0, d0, lm, ld, n)} < ${lm} then ${n} else ${allowedOf(m0, d0, lm, ld, n)} end`;
const M0 = 'case when w.minute_expire > now() then w.minute_points else 0 end';
const D0 = 'case when w.day_expire > now() then w.day_points else 0 end';
const msUntil = (column: string) => `(extract(epoch from ${column} - now()) * 1000)::int`;

/** The upsert that charges one key's windows: `insert` gives its new row, `lm` and `ld` its limits. */
const charge = (insert: string, lm: string, ld: string, n: string) => `
insert into rate_limit_windows as w (key, minute_points, minute_expire, day_points, day_expire)
${insert}
on conflict (key) do update set
  minute_points = ${minutePoints(M0, D0, lm, ld, n)},
  minute_expire = case when w.minute_expire > now() then w.minute_expire else excluded.minute_expire end,
  day_points = ${dayPoints(M0, D0, lm, ld, n)},
  day_expire = case when w.day_expire > now() then w.day_expire else excluded.day_expire end
returning minute_points as m, ${msUntil('minute_expire')} as m_ms, day_points as d, ${msUntil('day_expire')} as d_ms`;

// $1 the key, $2 and $3 its minute and day limits, $4 how many requests.
const KEY_LIMITS = ['$2::int', '$3::int', '$4::int'] as const;
const CHARGE_KEY = charge(
  `values ($1, ${minutePoints('0', '0', ...KEY_LIMITS)}, now() + interval '1 minute', ${dayPoints('0', '0', ...KEY_LIMITS)}, now() + interval '1 day')`,
  ...KEY_LIMITS,
);

/**
 * One statement that looks a key up and charges it: one round trip, not two (the API's requests
 * on PostgreSQL without Redis, server/api/rest/steps.ts). `lookup` selects at most one row by `$1`,
 * with the columns `id` (the counter's key), `per_minute`, `per_day` (null: no day window) and
 * `charge` (whether the key may be used: nothing is counted otherwise). The statement answers
 * the lookup's row with the counts `m, m_ms, d, d_ms` after `$2` requests (null when nothing was
 * counted).
 */
export function lookUpAndCharge(lookup: string): string {
  const [lm, ld, n] = ['(select k.per_minute from k)::int', '(select k.per_day from k)::int', '$2::int'];
  const [rm, rd] = ['k.per_minute::int', 'k.per_day::int'];
  const insert = `select k.id, ${minutePoints('0', '0', rm, rd, n)}, now() + interval '1 minute', ${dayPoints('0', '0', rm, rd, n)}, now() + interval '1 day' from k where k.charge`;
  return `with k as (${lookup}), c as (${charge(insert, lm, ld, n)})\nselect k.*, c.m, c.m_ms, c.d, c.d_ms from k left join c on true`;
}

interface WindowsRow {
  m: number;
  m_ms: number;
  d: number;
  d_ms: number;
}

// One counter per row of rate_limits ($1 key, $2 points to add, $3 window in ms).
const ADD = `
insert into rate_limits as c (key, points, expire) values ($1, $2, now() + $3::int * interval '1 millisecond')
on conflict (key) do update set
  points = case when c.expire > now() then c.points + excluded.points else excluded.points end,
  expire = case when c.expire > now() then c.expire else excluded.expire end
returning points, ${msUntil('expire')} as ms`;
const SET = `
insert into rate_limits (key, points, expire) values ($1, $2, now() + $3::int * interval '1 millisecond')
on conflict (key) do update set points = excluded.points, expire = excluded.expire
returning points, ${msUntil('expire')} as ms`;
const GET = `select points, ${msUntil('expire')} as ms from rate_limits where key = $1 and expire > now()`;
const DELETE = 'delete from rate_limits where key = $1 returning key';

// Expired rows count as absent everywhere above, so deleting them changes nothing but the size.
// A row being charged at that moment is re-checked by the delete and kept.
const CLEANUP = `
with counters as (delete from rate_limits where expire < now())
delete from rate_limit_windows where minute_expire < now() and day_expire < now()`;
const CLEANUP_EVERY_MS = 5 * 60_000;

interface CounterRow {
  points: number;
  ms: number;
}

// The package's types declare the base of its stores, but its index does not export it.
const StoreAbstract = Object.getPrototypeOf(RateLimiterRedis) as typeof RateLimiterStoreAbstract;

/** A rate-limiter-flexible counter on rate_limits, counting in memory while PostgreSQL is unreachable. */
class PostgresCounter extends StoreAbstract {
  constructor(
    private readonly sql: postgres.Sql,
    private readonly health: StoreHealth,
    keyPrefix: string,
    duration: number,
  ) {
    super({ storeClient: sql, keyPrefix, points: UNCAPPED, duration, insuranceLimiter: memoryCounter(keyPrefix, duration) });
  }

  private async one(query: string, params: (string | number)[]): Promise<CounterRow | null> {
    const rows = await this.health.watch(this.sql.unsafe<CounterRow[]>(query, params, { prepare: true }));
    return rows[0] ?? null;
  }

  // The hooks RateLimiterStoreAbstract builds consume/reward/get/delete/set/block on.
  _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<CounterRow | null> {
    return this.one(forceExpire ? SET : ADD, [rlKey, points, msDuration]);
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, row: CounterRow): RateLimiterRes {
    return new RateLimiterRes(Math.max(this.points - row.points, 0), row.ms, row.points, row.points === changedPoints);
  }

  _get(rlKey: string): Promise<CounterRow | null> {
    return this.one(GET, [rlKey]);
  }

  async _delete(rlKey: string): Promise<boolean> {
    return (await this.one(DELETE, [rlKey])) !== null;
  }
}

/** Deletes the rows of windows that have ended (every few minutes from each process). */
export async function deleteExpired(sql: postgres.Sql): Promise<void> {
  await sql.unsafe(CLEANUP);
}

export function postgresStore(sql: postgres.Sql): Store {
  const health = new StoreHealth('postgresql rate-limit store');
  const fallback = memoryStore();
  const cleanup = setInterval(() => {
    health.watch(deleteExpired(sql)).catch(() => {});
  }, CLEANUP_EVERY_MS);
  cleanup.unref();

  type LookedUp = { row: LookedUpRow; decision: Decision | null } | null;
  const lookUps = new Map<string, (hash: string, item: null) => Promise<LookedUp>>();
  const lookUpsOf = (statement: string) => {
    let run = lookUps.get(statement);
    if (!run) {
      run = groupedBy(async (param: string, calls: null[]): Promise<LookedUp[]> => {
        const [row] = await health.watch(sql.unsafe<LookedUpRow[]>(statement, [param, calls.length], { prepare: true }));
        if (!row) return calls.map(() => null);
        if (row.m === null) return calls.map(() => ({ row, decision: null }));
        const after = { m: row.m, mMs: row.m_ms!, d: row.d ?? 0, dMs: row.d_ms ?? 0 };
        return decideGroup(after, calls.length, row.per_minute, row.per_day).map((decision) => ({ row, decision }));
      });
      if (lookUps.size < 16) lookUps.set(statement, run);
    }
    return run;
  };

  return {
    kind: 'postgres',
    counter: (keyPrefix, duration) => new PostgresCounter(sql, health, keyPrefix, duration),
    chargeKey: groupedChargeKey(async (keyId, perMinute, perDay, n) => {
      const [row] = await health.watch(sql.unsafe<WindowsRow[]>(CHARGE_KEY, [keyId, perMinute, perDay, n], { prepare: true }));
      return { m: row!.m, mMs: row!.m_ms, d: row!.d, dMs: row!.d_ms };
    }, fallback),
    lookUpAndChargeKey<R extends LookedUpRow>(statement: string, param: string) {
      return lookUpsOf(statement)(param, null) as Promise<{ row: R; decision: Decision | null } | null>;
    },
    async ready() {},
    async close() {
      clearInterval(cleanup);
    },
  };
}
