import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

// Fixed windows counted by rate-limiter-flexible in a shared store. The store counts; we
// compare against the caller's limit ourselves, so one counter per window serves every plan
// and a plan change applies on the next request without resetting the count.

export interface Window {
  name: 'minute' | 'day';
  limit: number;
  counter: RateLimiterAbstract;
}

export interface Decision {
  allowed: boolean;
  /** Headers of the window with the fewest requests left (DESIGN.md 8.1). */
  headers: Record<string, string>;
}

interface Counted {
  window: Window;
  res: RateLimiterRes;
}

function headersFor({ window, res }: Counted, nowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(window.limit),
    'X-RateLimit-Remaining': String(Math.max(window.limit - res.consumedPoints, 0)),
    'X-RateLimit-Reset': String(Math.ceil((nowMs + res.msBeforeNext) / 1000)),
  };
}

/**
 * Counts one request in each window, shortest first. A window over its limit refuses the
 * request; the later windows are not charged, and the earlier ones are given their point back
 * (a request refused by the daily cap should not also use up the minute).
 */
export async function consume(key: string, windows: Window[], nowMs = Date.now()): Promise<Decision> {
  const counted: Counted[] = [];
  for (const window of windows) {
    const res = await window.counter.consume(key, 1);
    if (res.consumedPoints > window.limit) {
      await Promise.all(counted.map((c) => c.window.counter.reward(key, 1)));
      const h = headersFor({ window, res }, nowMs);
      const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      return { allowed: false, headers: { ...h, 'Retry-After': String(retryAfter) } };
    }
    counted.push({ window, res });
  }
  let tightest = counted[0]!;
  for (const c of counted) {
    if (c.window.limit - c.res.consumedPoints < tightest.window.limit - tightest.res.consumedPoints) tightest = c;
  }
  return { allowed: true, headers: headersFor(tightest, nowMs) };
}
