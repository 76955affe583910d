import type postgres from 'postgres';
import { RateLimiterRedis, RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { StoreHealth } from './health';
import { decide } from './limiter';
import { memoryCounter, memoryStore, UNCAPPED, type LookedUpRow, type Store } from './store';

// Rate limits in PostgreSQL, for a deployment scaled out without Redis. The tables are UNLOGGED
// (db/schema/ratelimit.ts), every statement is prepared and answers in one round trip, and the
// database's clock decides when windows end, so processes with skewed clocks agree.
//
// A key's two windows live in one row of rate_limit_windows and one statement charges both, by
// the rules of `consume` (limiter.ts) written as arithmetic on the counts before the request
// (m0, d0; an expired window counts 0):
// - the minute always counts the request          → minute = m0 + 1, refused when > its limit;
// - the day counts it only if the minute allowed it → day = d0 + 1 when m0 < minute limit;
// - the minute gets it back if the day refuses      → minute = m0 when m0 < minute limit and d0 ≥ day limit.
// ($2 = minute limit, $3 = day limit or null for no day window; `x >= null` is null, i.e. false.)
const minutePoints = (m0: string, d0: string, lm = '$2::int', ld = '$3::int') => `${m0} + case when ${m0} < ${lm} and ${d0} >= ${ld} then 0 else 1 end`;
const dayPoints = (m0: string, d0: string, lm = '$2::int', ld = '$3::int') => `${d0} + case when ${m0} < ${lm} and ${ld} is not null then 1 else 0 end`;
const M0 = 'case when w.minute_expire > now() then w.minute_points else 0 end';
const D0 = 'case when w.day_expire > now() then w.day_points else 0 end';
const msUntil = (column: string) => `(extract(epoch from ${column} - now()) * 1000)::int`;

/** The upsert that charges one key's windows: `insert` gives its new row, `lm` and `ld` its limits. */
const charge = (insert: string, lm?: string, ld?: string) => `
insert into rate_limit_windows as w (key, minute_points, minute_expire, day_points, day_expire)
${insert}
on conflict (key) do update set
  minute_points = ${minutePoints(M0, D0, lm, ld)},
  minute_expire = case when w.minute_expire > now() then w.minute_expire else excluded.minute_expire end,
  day_points = ${dayPoints(M0, D0, lm, ld)},
  day_expire = case when w.day_expire > now() then w.day_expire else excluded.day_expire end
returning minute_points as m, ${msUntil('minute_expire')} as m_ms, day_points as d, ${msUntil('day_expire')} as d_ms`;

const CHARGE_KEY = charge(`values ($1, ${minutePoints('0', '0')}, now() + interval '1 minute', ${dayPoints('0', '0')}, now() + interval '1 day')`);

/**
 * One statement that looks a key up and charges it: one round trip, not two (the API's requests
 * on PostgreSQL without Redis, server/api/rest/steps.ts). `lookup` selects at most one row by `$1`,
 * with the columns `id` (the counter's key), `per_minute`, `per_day` (null: no day window) and
 * `charge` (whether the key may be used: nothing is counted otherwise). The statement answers
 * the lookup's row with the counts `m, m_ms, d, d_ms` (null when nothing was counted).
 */
export function lookUpAndCharge(lookup: string): string {
  const [lm, ld] = ['(select k.per_minute from k)::int', '(select k.per_day from k)::int'];
  const [rm, rd] = ['k.per_minute::int', 'k.per_day::int'];
  const insert = `select k.id, ${minutePoints('0', '0', rm, rd)}, now() + interval '1 minute', ${dayPoints('0', '0', rm, rd)}, now() + interval '1 day' from k where k.charge`;
  return `with k as (${lookup}), c as (${charge(insert, lm, ld)})\nselect k.*, c.m, c.m_ms, c.d, c.d_ms from k left join c on true`;
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

  return {
    kind: 'postgres',
    counter: (keyPrefix, duration) => new PostgresCounter(sql, health, keyPrefix, duration),
    async chargeKey(keyId, perMinute, perDay) {
      let row: WindowsRow | undefined;
      try {
        [row] = await health.watch(sql.unsafe<WindowsRow[]>(CHARGE_KEY, [keyId, perMinute, perDay], { prepare: true }));
      } catch {
        return fallback.chargeKey(keyId, perMinute, perDay);
      }
      const now = Date.now();
      return decide(
        { limit: perMinute, consumed: row!.m, msBeforeNext: row!.m_ms },
        perDay === null ? null : { limit: perDay, consumed: row!.d, msBeforeNext: row!.d_ms },
        now,
      );
    },
    async lookUpAndChargeKey<R extends LookedUpRow>(statement: string, param: string) {
      const [row] = await health.watch(sql.unsafe<R[]>(statement, [param], { prepare: true }));
      if (!row) return null;
      if (row.m === null) return { row, decision: null };
      const minute = { limit: row.per_minute, consumed: row.m, msBeforeNext: row.m_ms! };
      const day = row.per_day === null ? null : { limit: row.per_day, consumed: row.d!, msBeforeNext: row.d_ms! };
      return { row, decision: decide(minute, day, Date.now()) };
    },
    async ready() {},
    async close() {
      clearInterval(cleanup);
    },
  };
}
