// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import type { Database } from '../db/client';
import type { Decision } from '../server/platform/ratelimit/limiter';
import type { Store } from '../server/platform/ratelimit/store';
import { createTestDatabase, DB_KIND } from './harness';

// The shared rate-limit stores (PostgreSQL without Redis, and Redis) against the real services:
// they decide exactly as the memory store does (limiter.ts's rules), count exactly under
// concurrency, start windows afresh, serve the guards' counters, and count in memory while
// their store is unreachable.

process.env.LOG_LEVEL ??= 'silent';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = randomBytes(4).toString('hex');
let n = 0;
const uid = () => `t${RUN}-${++n}`;

describe('shared rate-limit stores', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)' }, () => {
  let pg: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database;
  let stores: Record<'postgres' | 'redis', Store>;
  let memoryStore: () => Store;
  let deleteExpired: (sql: postgres.Sql) => Promise<void>;
  let guardsModule: typeof import('../server/modules/auth/guards');
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-rl-'));

  before(async () => {
    pg = await createTestDatabase();
    const { openDatabase } = await import('../db/client');
    const { migrateDatabase } = await import('../db/migrate');
    database = await openDatabase({ databaseUrl: pg.url, dataDir: tmp, max: 10 });
    await migrateDatabase(database);
    const pgStore = await import('../server/platform/ratelimit/store-postgres');
    const { redisStore } = await import('../server/platform/ratelimit/store-redis');
    ({ memoryStore } = await import('../server/platform/ratelimit/store'));
    guardsModule = await import('../server/modules/auth/guards');
    deleteExpired = pgStore.deleteExpired;
    stores = { postgres: pgStore.postgresStore(database.sql!), redis: redisStore(REDIS_URL) };
    await stores.redis.ready(5_000);
    await redis.connect();
  });

  after(async () => {
    await Promise.all(Object.values(stores ?? {}).map((s) => s.close()));
    const left = await redis.keys(`rl:*${RUN}*`);
    if (left.length > 0) await redis.del(...left);
    await redis.quit();
    await database?.close();
    await pg?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const summary = (d: Decision) => ({
    allowed: d.allowed,
    limit: d.headers['X-RateLimit-Limit'],
    remaining: d.headers['X-RateLimit-Remaining'],
    retry: d.headers['Retry-After'] === undefined ? undefined : Math.round(Number(d.headers['Retry-After']) / 60),
  });

  /** Ends a key's minute window now, as time passing would. */
  const endMinute = {
    postgres: (key: string) => database.sql!`update rate_limit_windows set minute_expire = now() where key = ${key}`.then(() => {}),
    redis: (key: string) => redis.del(`rl:key:min:${key}`).then(() => {}),
  };

  for (const kind of ['postgres', 'redis'] as const) {
    describe(`${kind} store`, () => {
      it('decides request by request as the memory store does', async () => {
        // [per minute, per day, requests]: minute only; the day refuses first; the minute does; a tie.
        const scenarios: [number, number | null, number][] = [
          [3, null, 5],
          [5, 3, 8],
          [3, 5, 8],
          [4, 4, 7],
        ];
        for (const [perMinute, perDay, requests] of scenarios) {
          const key = uid();
          const memory = memoryStore();
          for (let i = 0; i < requests; i++) {
            const want = summary(await memory.chargeKey(key, perMinute, perDay));
            const got = await stores[kind].chargeKey(key, perMinute, perDay);
            assert.deepEqual(summary(got), want, `${kind} [${perMinute}, ${perDay}] request ${i + 1}`);
            const reset = Number(got.headers['X-RateLimit-Reset']);
            const window = got.headers['X-RateLimit-Limit'] === String(perMinute) ? 60 : 86_400;
            assert.ok(Math.abs(reset - (Date.now() / 1000 + window)) <= 2, `reset ${reset}`);
          }
        }
      });

      it('charges a burst in groups, each request answered as if they came one by one in order', async () => {
        // [per minute, per day, requests before, requests at once]: as above, and from counts part-used.
        const scenarios: [number, number | null, number, number][] = [
          [3, null, 0, 5],
          [5, 3, 1, 8],
          [3, 5, 2, 8],
          [4, 4, 1, 7],
          [10, 6, 0, 12],
        ];
        for (const [perMinute, perDay, before, requests] of scenarios) {
          const key = uid();
          const memory = memoryStore();
          for (let i = 0; i < before; i++) {
            await memory.chargeKey(key, perMinute, perDay);
            await stores[kind].chargeKey(key, perMinute, perDay);
          }
          const want: ReturnType<typeof summary>[] = [];
          for (let i = 0; i < requests; i++) want.push(summary(await memory.chargeKey(key, perMinute, perDay)));
          // The first goes alone, the others wait for it and go as one group.
          const got = await Promise.all(Array.from({ length: requests }, () => stores[kind].chargeKey(key, perMinute, perDay)));
          assert.deepEqual(got.map(summary), want, `${kind} [${perMinute}, ${perDay}] after ${before}`);
        }
      });

      it('lets exactly the limit through under concurrency, and gives the minute back when the day refuses', async () => {
        const key = uid();
        const minute = await Promise.all(Array.from({ length: 150 }, () => stores[kind].chargeKey(key, 60, 10_000)));
        assert.equal(minute.filter((d) => d.allowed).length, 60);

        const other = uid();
        const day = await Promise.all(Array.from({ length: 100 }, () => stores[kind].chargeKey(other, 1_000, 40)));
        assert.equal(day.filter((d) => d.allowed).length, 40);
        // A higher daily cap (a plan change): the minute counted only the 40 that went through.
        const next = await stores[kind].chargeKey(other, 1_000, 100_000);
        assert.deepEqual(summary(next), { allowed: true, limit: '1000', remaining: '959', retry: undefined });
      });

      it('starts a window afresh once it has ended', async () => {
        const key = uid();
        for (let i = 0; i < 2; i++) await stores[kind].chargeKey(key, 2, 10);
        assert.equal((await stores[kind].chargeKey(key, 2, 10)).allowed, false);
        await endMinute[kind](key);
        const d = await stores[kind].chargeKey(key, 2, 10);
        // The day still holds the two allowed requests and this one.
        assert.deepEqual(summary(d), { allowed: true, limit: '2', remaining: '1', retry: undefined });
      });

      it('serves the guards counters: consume, reward, get and delete, atomically', async () => {
        const counter = stores[kind].counter(`rl:test${RUN}`, 60);
        const key = uid();
        const res = await Promise.all(Array.from({ length: 50 }, () => counter.consume(key, 1)));
        assert.deepEqual(
          res.map((r) => r.consumedPoints).sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => i + 1),
        );
        assert.equal((await counter.reward(key, 1)).consumedPoints, 49);
        const got = await counter.get(key);
        assert.ok(got);
        assert.equal(got.consumedPoints, 49);
        assert.ok(got.msBeforeNext > 50_000 && got.msBeforeNext <= 60_000, String(got.msBeforeNext));
        await counter.delete(key);
        assert.equal(await counter.get(key), null);

        const { createAuthGuards, SIGN_IN_FAILURES_PER_ADDRESS: limit } = guardsModule;
        const guards = createAuthGuards((prefix, duration) => stores[kind].counter(`${prefix}${RUN}`, duration));
        const waits = await Promise.all(Array.from({ length: limit + 10 }, () => guards.signIn.attempt(uid(), `addr${RUN}`)));
        assert.equal(waits.filter((w) => w === 0).length, limit, 'the per-address sign-in guard');
        // An address that signed in is known for 14 days (a window past what an int of milliseconds holds would fail on PostgreSQL).
        const account = uid();
        assert.equal(await guards.signIn.attempt(account, `home${RUN}`), 0);
        await guards.signIn.succeeded(account, `home${RUN}`);
        const known = await stores[kind].counter(`rl:signin:known${RUN}`, guardsModule.KNOWN_ADDRESS_SECONDS).get(`${account}|home${RUN}`);
        assert.ok(known && known.msBeforeNext > 13 * 86_400_000, String(known?.msBeforeNext));
      });
    });
  }

  describe('postgres store: tables, clean-up, outage', () => {
    it('keeps its counters in UNLOGGED tables', async () => {
      const rows = await database.sql!`
        select relname, relpersistence from pg_class where relname in ('rate_limits', 'rate_limit_windows') order by relname`;
      assert.deepEqual(
        rows.map((r) => [r.relname, r.relpersistence]),
        [
          ['rate_limit_windows', 'u'],
          ['rate_limits', 'u'],
        ],
      );
    });

    it('deletes ended windows and keeps live ones', async () => {
      const sql = database.sql!;
      const [live, ended, dayLive] = [uid(), uid(), uid()];
      await sql`insert into rate_limit_windows values
        (${live}, 1, now() + interval '1 minute', 1, now() + interval '1 day'),
        (${ended}, 1, now() - interval '1 minute', 1, now() - interval '1 second'),
        (${dayLive}, 1, now() - interval '1 minute', 1, now() + interval '1 hour')`;
      await sql`insert into rate_limits values (${live}, 1, now() + interval '1 minute'), (${ended}, 1, now() - interval '1 second')`;
      await deleteExpired(sql);
      const windows = await sql`select key from rate_limit_windows where key in (${live}, ${ended}, ${dayLive}) order by key`;
      assert.deepEqual(windows.map((r) => r.key).sort(), [live, dayLive].sort());
      const counters = await sql`select key from rate_limits where key in (${live}, ${ended})`;
      assert.deepEqual(counters.map((r) => r.key), [live]);
    });

    it('counts in memory while PostgreSQL is unreachable', async () => {
      const { postgresStore } = await import('../server/platform/ratelimit/store-postgres');
      const down = postgres('postgres://postgres@127.0.0.1:1/none', { max: 1, connect_timeout: 2, onnotice: () => {} });
      const store = postgresStore(down);
      try {
        const key = uid();
        for (let i = 1; i <= 3; i++) assert.deepEqual(summary(await store.chargeKey(key, 3, 100)).remaining, String(3 - i));
        assert.equal((await store.chargeKey(key, 3, 100)).allowed, false);
        const counter = store.counter('rl:test', 60);
        assert.equal((await counter.consume(key, 1)).consumedPoints, 1);
        assert.equal((await counter.consume(key, 1)).consumedPoints, 2);
      } finally {
        await store.close();
        await down.end({ timeout: 1 });
      }
    });
  });
});
