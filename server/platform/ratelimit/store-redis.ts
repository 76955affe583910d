import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { StoreHealth } from './health';
import { groupedChargeKey, KEY_DAY, KEY_MINUTE, memoryCounter, memoryStore, UNCAPPED, type Store } from './store';

// Rate limits in Redis (REDIS_URL). The guards' counters are rate-limiter-flexible's; a key's
// two windows are charged by one script (one round trip, atomic), with the rules of `consume`
// (limiter.ts), on the same keys and in the same format as RateLimiterRedis would use.
//
// `n` requests at once, as if one after the other (as the PostgreSQL store does: its comments
// give the arithmetic; `decideGroup` reads each request's answer from the counts after).
// KEYS: minute counter, day counter. ARGV: minute limit, day limit (-1: no day window), n.
// Returns {minute, minute ms left} when the day was not touched, else {minute, ms, day, ms}.
const CHARGE_KEY = `
local function add(key, n, seconds)
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local v = redis.call('incrby', key, n)
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = seconds * 1000
  end
  return v, ttl
end
local minuteLimit, dayLimit, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local m0 = tonumber(redis.call('get', KEYS[1]) or '0')
if m0 >= minuteLimit or dayLimit < 0 then
  local m, mttl = add(KEYS[1], n, 60)
  return {m, mttl}
end
local d0 = tonumber(redis.call('get', KEYS[2]) or '0')
local a = math.max(0, math.min(n, minuteLimit - m0, dayLimit - d0))
local minuteRanOut = m0 + a >= minuteLimit
local d, dttl = add(KEYS[2], minuteRanOut and a or n, 86400)
local m, mttl = add(KEYS[1], minuteRanOut and n or a, 60)
return {m, mttl, d, dttl}
`;

type ScriptedRedis = Redis & {
  chargeKey(minuteKey: string, dayKey: string, perMinute: number, perDay: number, n: number): Promise<number[]>;
};

export function redisStore(url: string): Store {
  const health = new StoreHealth('redis');
  const fallback = memoryStore();
  // No offline queue: while Redis is down, calls fail at once and the process counts in memory.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) as ScriptedRedis;
  redis.defineCommand('chargeKey', { numberOfKeys: 2, lua: CHARGE_KEY });
  redis.on('error', (err: Error) => health.failed(err));
  redis.on('ready', () => health.ok());

  return {
    kind: 'redis',
    counter: (keyPrefix, duration) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix,
        points: UNCAPPED,
        duration,
        insuranceLimiter: memoryCounter(keyPrefix, duration),
      }),
    chargeKey: groupedChargeKey(async (keyId, perMinute, perDay, n) => {
      const [m = 0, mMs = 0, d = 0, dMs = 0] = await redis.chargeKey(`${KEY_MINUTE}:${keyId}`, `${KEY_DAY}:${keyId}`, perMinute, perDay ?? -1, n);
      return { m, mMs, d, dMs };
    }, fallback),
    async ready(timeoutMs) {
      if (redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => {});
      else redis.disconnect();
    },
  };
}
