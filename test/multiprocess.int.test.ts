// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { openDatabase, type Database } from '../db/client';
import { createUser } from '../server/modules/auth/users';
import { SCOPES } from '../server/modules/vocabulary/scopes';
import { createKey } from '../server/modules/keys/service';
import { createTestDatabase, DB_KIND, TEST_AUTH_SECRET } from './harness';
import { callProcess, seedTenant, startProcess, stop, waitReady, type Proc } from './processes';

// Two real server processes on one PostgreSQL database: revocation is seen at once by the other
// process, and a key's rate limit is exact across both (docs/api.md, "Many processes, one service",
// "Keys and scopes", "Rate limits") — with the counters in Redis, and in PostgreSQL when there is
// no Redis — even behind an address that keyless requests put over its per-address limit (20 a
// minute here). A key's open event streams are counted exactly across both too.

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The per-address counter of the test client (both processes see 127.0.0.1). */
const ADDRESS_COUNTER = 'rl:addr:min:127.0.0.1';

const TOPOLOGIES = [
  { store: 'redis', env: { REDIS_URL } },
  // An empty value is "not set" (server/platform/env.js), whatever the test runner's own environment says.
  { store: 'postgres', env: { REDIS_URL: '' } },
] as const;

for (const topology of TOPOLOGIES) {
  const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';
  describe(`two server processes on PostgreSQL, rate limits in ${topology.store}`, { skip }, () => {
    let pg: Awaited<ReturnType<typeof createTestDatabase>>;
    let database: Database;
    let a: Proc;
    let b: Proc;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-mp-'));
    const keyIds: string[] = [];

    const startPgProcess = (databaseUrl: string) =>
      startProcess({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', AUTH_SECRET: TEST_AUTH_SECRET, RATE_LIMIT_ANON_PER_MINUTE: '20', ...topology.env });

    before(async () => {
      pg = await createTestDatabase({ empty: true }); // both processes migrate it at once (the advisory lock)
      a = await startPgProcess(pg.url);
      b = await startPgProcess(pg.url);
      await Promise.all([waitReady(a), waitReady(b)]);
      database = await openDatabase({ databaseUrl: pg.url, dataDir: tmp, max: 2 });
    });

    after(async () => {
      await Promise.all([stop(a), stop(b)]);
      // Leave no counters behind in the shared Redis (the day windows would live 24 h).
      const redis = new Redis(REDIS_URL, { lazyConnect: true });
      await redis.connect();
      await redis.del(ADDRESS_COUNTER, ...keyIds.flatMap((id) => [`rl:key:min:${id}`, `rl:key:day:${id}`]));
      await redis.quit();
      await database?.close();
      await pg?.drop();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    async function seedKey(scopes = [...SCOPES]) {
      const m = await createUser(database.db, { email: `mp-${Date.now()}-${Math.random()}@example.test` });
      const actor = { kind: 'user' as const, userId: m.userId, role: 'owner' as const, workspaceId: m.workspaceId, environment: 'test' as const, scopes: [...SCOPES] };
      const key = await createKey(database.db, actor, { name: 'mp', scopes });
      keyIds.push(key.id);
      return { actor, key };
    }

    async function minuteCount(keyId: string): Promise<number> {
      if (topology.store === 'postgres') {
        const [row] = await database.sql!`select minute_points from rate_limit_windows where key = ${keyId}`;
        return Number(row?.minute_points);
      }
      const redis = new Redis(REDIS_URL);
      try {
        return Number(await redis.get(`rl:key:min:${keyId}`));
      } finally {
        redis.disconnect();
      }
    }

    /** GET /v1/keys with a key, or with none (''). */
    const get = (proc: Proc, key: string) => fetch(`${proc.url}/v1/keys`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

    it('a key revoked through one process is refused by the other on the very next request', async () => {
      const { actor, key: admin } = await seedKey();
      const victim = await createKey(database.db, actor, { name: 'victim', scopes: ['keys:manage'] });
      keyIds.push(victim.id);
      assert.equal((await get(b, victim.key)).status, 200);
      assert.equal((await get(a, victim.key)).status, 200);

      const revoked = await fetch(`${a.url}/v1/keys/${victim.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${admin.key}` } });
      assert.equal(revoked.status, 200);

      for (const proc of [b, a]) {
        const res = await get(proc, victim.key);
        assert.equal(res.status, 401);
        const body = (await res.json()) as { error: { code: string } };
        assert.equal(body.error.code, 'api_key_revoked');
      }
    });

    it('a starter key gets exactly 60 of 100 concurrent requests split across both processes', async () => {
      const { key } = await seedKey(['keys:manage']);
      const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 === 0 ? a : b, key.key)));
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 60, `statuses: ${statuses.join(',')}`);
      assert.equal(statuses.filter((s) => s === 429).length, 40);
      for (const r of responses.filter((r) => r.status === 429)) assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      const served = new Set(responses.filter((r) => r.status === 200).map((r) => r.url.split('/v1')[0]));
      assert.equal(served.size, 2, 'both processes served requests');
      await Promise.all(responses.map((r) => r.body?.cancel()));
      // The counts live in the store this topology names (refused requests count in the minute too).
      assert.equal(await minuteCount(key.id), 100);
    });

    it('a starter key behind an address over its per-address limit still gets exactly its 60 (a NAT)', async () => {
      if (topology.store === 'redis') {
        const redis = new Redis(REDIS_URL);
        await redis.del(ADDRESS_COUNTER).finally(() => redis.disconnect());
      }
      // A misconfigured script behind the same address: keyless requests to both processes.
      const keyless = await Promise.all(Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? a : b, '')));
      // (The revocation test above spent two of the address's 20 in this window already.)
      assert.ok(keyless.filter((r) => r.status === 429).length >= 10, 'the address is over its 20 across both processes');
      const { key } = await seedKey(['keys:manage']);
      const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 === 0 ? a : b, key.key)));
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 60, `statuses: ${statuses.join(',')}`);
      for (const r of responses) assert.equal(r.headers.get('x-ratelimit-limit'), '60', 'the key\'s own limit');
      await Promise.all([...keyless, ...responses].map((r) => r.body?.cancel()));
      assert.equal((await get(a, '')).status, 429, 'keyless requests stay refused');
    });

    it('exactly 100 of 130 concurrent event streams of one key open, split across both processes', async () => {
      const { key, keyId } = await seedTenant(database.db, { name: 'streams' });
      keyIds.push(keyId);
      const agent = await callProcess<{ id: string }>(a.url, key, 'POST', '/v1/agents', { name: 'slow', model: 'sandbox/slow' });
      const input = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
      const run = await callProcess<{ id: string }>(a.url, key, 'POST', `/v1/agents/${agent.body.id}/execute`, { input });
      assert.equal(run.status, 202, JSON.stringify(run.body));
      const controller = new AbortController();
      const responses = await Promise.all(
        Array.from({ length: 130 }, (_, i) =>
          fetch(`${(i % 2 === 0 ? a : b).url}/v1/executions/${run.body.id}/stream`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      try {
        assert.equal(statuses.filter((s) => s === 200).length, 100, `statuses: ${statuses.join(',')}`);
        assert.equal(statuses.filter((s) => s === 429).length, 30);
        const served = new Set(responses.filter((r) => r.status === 200).map((r) => r.url.split('/v1')[0]));
        assert.equal(served.size, 2, 'both processes opened streams');
      } finally {
        controller.abort();
        await callProcess(a.url, key, 'POST', `/v1/executions/${run.body.id}/cancel`);
      }
    });
  });
}
