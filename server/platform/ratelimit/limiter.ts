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
