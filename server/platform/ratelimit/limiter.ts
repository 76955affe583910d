import type { RateLimiterAbstract } from 'rate-limiter-flexible';

// Fixed windows counted in a shared store. The store counts; we compare against the caller's
// limit ourselves, so one counter per window serves every plan and a plan change applies on the
// next request without resetting the count.
//
// Two ways to count, one decision:
// - `consume` charges rate-limiter-flexible counters one window after the other (memory store,
//   and the fallback of every shared store while it is unreachable);
// - the Redis and PostgreSQL stores charge a key's windows in one atomic step with the same
//   rules (store-redis.ts, store-postgres.ts) and turn the counts into a Decision with `decide`.

export type WindowName = 'minute' | 'day';

export interface Window {
  name: WindowName;
  limit: number;
  counter: RateLimiterAbstract;
}

export interface Decision {
  allowed: boolean;
  /** Headers of the window with the fewest requests left (docs/api.md, "Rate limits"). */
  headers: Record<string, string>;
}

/** One window after this request was counted: its limit, the requests it holds, the time to its end. */
export interface Count {
  limit: number;
  consumed: number;
  msBeforeNext: number;
}

function headersFor(c: Count, nowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(c.limit),
    'X-RateLimit-Remaining': String(Math.max(c.limit - c.consumed, 0)),
    'X-RateLimit-Reset': String(Math.ceil((nowMs + c.msBeforeNext) / 1000)),
  };
}

/** The window `c` refused the request: its headers and `Retry-After` in whole seconds. */
export function refused(c: Count, nowMs = Date.now()): Decision {
  const retryAfter = Math.max(1, Math.ceil(c.msBeforeNext / 1000));
  return { allowed: false, headers: { ...headersFor(c, nowMs), 'Retry-After': String(retryAfter) } };
}

/** Every window let the request through: the headers of the one with the fewest requests left (the first on a tie). */
export function allowed(counts: Count[], nowMs = Date.now()): Decision {
  let tightest = counts[0]!;
  for (const c of counts) {
    if (c.limit - c.consumed < tightest.limit - tightest.consumed) tightest = c;
  }
  return { allowed: true, headers: headersFor(tightest, nowMs) };
}

/** Counts after a store applied the rules of `consume` to a key's minute and (optional) day windows. */
export function decide(minute: Count, day: Count | null, nowMs = Date.now()): Decision {
  if (minute.consumed > minute.limit) return refused(minute, nowMs);
  if (!day) return allowed([minute], nowMs);
  if (day.consumed > day.limit) return refused(day, nowMs);
  return allowed([minute, day], nowMs);
}

/**
 * Counts one request in each window, shortest first. A window over its limit refuses the
 * request; the later windows are not charged, and the earlier ones are given their point back
 * (a request refused by the daily cap should not also use up the minute).
 */
export async function consume(key: string, windows: Window[], nowMs = Date.now()): Promise<Decision> {
  const counted: { window: Window; count: Count }[] = [];
  for (const window of windows) {
    const res = await window.counter.consume(key, 1);
    const count = { limit: window.limit, consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext };
    if (count.consumed > window.limit) {
      await Promise.all(counted.map((c) => c.window.counter.reward(key, 1)));
      return refused(count, nowMs);
    }
    counted.push({ window, count });
  }
  return allowed(
    counted.map((c) => c.count),
    nowMs,
  );
}

/** A key's windows after a store charged a group of requests at once: the counts after the last. */
export interface GroupCounts {
  /** The minute's count, and the time to its end. */
  m: number;
  mMs: number;
  /** The day's (ignored without a day window), and the time to its end. */
  d: number;
  dMs: number;
}

/**
 * Each of `n` requests charged at once, in order, as if one after the other (the rules of
 * `consume`: the first `a` go through while both windows have room; the rest are refused by the
 * window that ran out: the minute counts them, or the day does and the minute gets them back).
 * A store charges the group in one atomic step from counts (m0, d0) to `after`; which window ran
 * out, and so m0, d0 and `a`, follow from `after` and `n` alone:
 * - the minute is over its limit only if it refused some: m0 = m − n, a = limit − m0;
 * - else the day is over its own only if it refused some: d0 = d − n, a = limit − d0;
 * - else all went through.
 */
export function decideGroup(after: GroupCounts, n: number, perMinute: number, perDay: number | null, nowMs = Date.now()): Decision[] {
  const day = (d: number): Count | null => (perDay === null ? null : { limit: perDay, consumed: d, msBeforeNext: after.dMs });
  const minute = (m: number): Count => ({ limit: perMinute, consumed: m, msBeforeNext: after.mMs });
  const out: Decision[] = [];
  if (after.m > perMinute) {
    const m0 = after.m - n;
    const a = Math.min(n, Math.max(0, perMinute - m0));
    const d0 = after.d - a;
    for (let i = 1; i <= n; i++) out.push(decide(minute(m0 + i), day(i <= a ? d0 + i : d0 + a), nowMs));
  } else if (perDay !== null && after.d > perDay) {
    const d0 = after.d - n;
    const a = Math.min(n, Math.max(0, perDay - d0));
    const m0 = after.m - a;
    for (let i = 1; i <= n; i++) out.push(decide(minute(m0 + Math.min(i, a)), day(d0 + i), nowMs));
  } else {
    for (let i = 1; i <= n; i++) out.push(decide(minute(after.m - n + i), day(after.d - n + i), nowMs));
  }
  return out;
}
