// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey, hashKey } from '../../server/modules/keys/format';
import { expectError, expectStatus, rateHeaders } from '../expect';
import { DB_KIND, startServer, type TestServer } from '../harness';
import { limitsFor, limitsSql, PLAN_LIMITS } from '../../server/modules/ratelimit/plans';
import type { Plan } from '../../db/schema';

// Per-key limits by plan and their headers (docs/api.md, "Rate limits"), over real HTTP.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

const list = (key: string) => api.request('GET', '/v1/keys', { key });

describe('rate limits per key', () => {
  it('a starter key gets exactly 60 requests a minute, then 429 with Retry-After', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    for (let i = 1; i <= 60; i++) {
      const res = await list(k.key);
      expectStatus(res, 200);
      const h = rateHeaders(res);
      assert.equal(h.limit, 60);
      assert.equal(h.remaining, 60 - i);
    }
    const refused = await list(k.key);
    expectError(refused, 429, 'rate_limit_exceeded');
    const h = rateHeaders(refused);
    assert.equal(h.limit, 60);
    assert.equal(h.remaining, 0);
    const retry = refused.headers.get('retry-after');
    assert.match(retry ?? '', /^\d+$/, `Retry-After: ${retry}`);
    assert.ok(Number(retry) >= 1 && Number(retry) <= 60, `Retry-After: ${retry}`);
    assert.ok(h.reset >= Math.floor(Date.now() / 1000) + Number(retry) - 1);

    // Rate limit comes before scope and input checks.
    expectError(await api.request('POST', '/v1/keys', { key: k.key, body: { bogus: true } }), 429, 'rate_limit_exceeded');
    // Another key of the same workspace has its own budget.
    const sibling = await api.seed.key({ workspace: k.workspace });
    expectStatus(await list(sibling.key), 200);
  });

  it('carries the headers on errors of an identified key too', async () => {
    const k = await api.seed.key({ plan: 'starter', scopes: ['agents:read'] });
    const forbidden = await list(k.key);
    expectError(forbidden, 403, 'insufficient_scope');
    assert.equal(rateHeaders(forbidden).limit, 60);
    const admin = await api.seed.key({ plan: 'starter' });
    const invalid = await api.request('POST', '/v1/keys', { key: admin.key, body: {} });
    expectError(invalid, 400, 'missing_required_field');
    assert.equal(rateHeaders(invalid).limit, 60);
    const missing = await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: admin.key });
    expectError(missing, 404, 'resource_not_found');
    assert.equal(rateHeaders(missing).remaining, 58);
  });

  it('a professional key gets 300 a minute', async () => {
    const k = await api.seed.key({ plan: 'professional' });
    const h = rateHeaders(await list(k.key));
    assert.equal(h.limit, 300);
    assert.equal(h.remaining, 299);
  });

  it('an enterprise key gets its custom per-minute limit', async () => {
    const k = await api.seed.key({ plan: 'enterprise', customRpm: 5 });
    for (let i = 1; i <= 5; i++) {
      const res = await list(k.key);
      expectStatus(res, 200);
      assert.deepEqual([rateHeaders(res).limit, rateHeaders(res).remaining], [5, 5 - i]);
    }
    expectError(await list(k.key), 429, 'rate_limit_exceeded');
  });

  it('a plan change applies from the next request', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    assert.equal(rateHeaders(await list(k.key)).limit, 60);
    await api.seed.setPlan(k.workspace, 'enterprise', 2_000);
    const h = rateHeaders(await list(k.key));
    assert.equal(h.limit, 2_000);
    assert.equal(h.remaining, 1_998);
  });
});

describe('requests without a valid key', () => {
  it('carry the per-address limiter’s headers', async () => {
    const responses = [
      await api.request('GET', '/v1/keys'),
      await api.request('GET', '/v1/keys', { key: generateKey('test').key }),
      await api.request('GET', '/v1/keys', { key: 'svc_test_sk_nope' }),
    ];
    for (const res of responses) {
      assert.equal(res.status, 401);
      assert.equal(rateHeaders(res).limit, 100_000);
    }
  });
});

// Without Redis, a key's lookup and its charge are one statement (server/modules/keys/verify-charged.ts).
describe('rate limits in PostgreSQL: the lookup and the charge in one statement', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, () => {
  const sql = () => api.runtime.database.sql!;

  it('is the path taken, and lets exactly the limit through under concurrency', async () => {
    assert.equal(api.runtime.limits.store, 'postgres');
    assert.equal(typeof api.runtime.limits.lookUpAndChargeKey, 'function');
    const k = await api.seed.key({ plan: 'starter' });
    // The statement itself answers (a failing one would be hidden by the two-statement fallback).
    const { verifyKeyCharged } = await import('../../server/modules/keys/verify-charged');
    const once = await verifyKeyCharged(api.runtime.database.db, hashKey(k.key), api.runtime.limits.lookUpAndChargeKey!);
    assert.equal(once.result.valid, true);
    assert.deepEqual([once.decision?.allowed, once.decision?.headers['X-RateLimit-Remaining']], [true, '59']);
    const statuses = await Promise.all(Array.from({ length: 150 }, async () => (await list(k.key)).status));
    assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length], [59, 91]);
    const [row] = await sql()<{ m: number }[]>`select minute_points as m from rate_limit_windows where key = ${k.id}`;
    // The 90 refused were counted as the store counts them (the minute keeps counting; the day does not).
    assert.equal(row?.m, 151);
  });

  it('counts every request of a key’s first moment once, when they all find no row yet', async () => {
    const k = await api.seed.key({ plan: 'starter' });
    // Each first request of the key finds no counter row: one inserts it, the others update it.
    const statuses = await Promise.all(Array.from({ length: 150 }, async () => (await list(k.key)).status));
    assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length], [60, 90]);
    const [row] = await sql()<{ m: number }[]>`select minute_points as m from rate_limit_windows where key = ${k.id}`;
    assert.equal(row?.m, 150);
  });

  it('counts nothing for a revoked or an expired key', async () => {
    const admin = await api.seed.key({ plan: 'starter' });
    const revoked = await api.seed.key({ workspace: admin.workspace });
    expectStatus(await api.request('DELETE', `/v1/keys/${revoked.id}`, { key: admin.key }), 200);
    const expiring = await api.seed.key({ workspace: admin.workspace, expiresAt: new Date(Date.now() + 1_000).toISOString() });
    await new Promise((r) => setTimeout(r, Date.parse(expiring.expiresAt!) - Date.now() + 50));
    for (let i = 0; i < 3; i++) {
      expectError(await list(revoked.key), 401, 'api_key_revoked');
      expectError(await list(expiring.key), 401, 'api_key_expired');
    }
    const rows = await sql()<{ key: string }[]>`select key from rate_limit_windows where key in (${revoked.id}, ${expiring.id})`;
    assert.deepEqual(rows.map((r) => r.key), []);
  });

  it('looks up and charges apart when the one statement fails, and still answers and limits', async () => {
    // Every charge in PostgreSQL fails now (NOT VALID: the constraint checks new rows only).
    await sql()`alter table rate_limit_windows add constraint no_charges check (minute_points < 0) not valid`;
    try {
      const k = await api.seed.key({ plan: 'enterprise', customRpm: 3 });
      for (let i = 1; i <= 3; i++) {
        const res = await list(k.key);
        expectStatus(res, 200);
        // Counted in this process's memory meanwhile (the store's own fallback).
        assert.deepEqual([rateHeaders(res).limit, rateHeaders(res).remaining], [3, 3 - i]);
      }
      expectError(await list(k.key), 429, 'rate_limit_exceeded');
      expectError(await list(generateKey('test').key), 401, 'invalid_api_key');
    } finally {
      await sql()`alter table rate_limit_windows drop constraint no_charges`;
    }
  });

  it('reads the same limits as the plans, custom ones included', async () => {
    const { perMinute, perDay } = limitsSql('w');
    for (const plan of Object.keys(PLAN_LIMITS) as Plan[]) {
      for (const customRpm of [null, 0, 5]) {
        const [row] = await sql().unsafe<{ m: number; d: number | null }[]>(
          `select ${perMinute} as m, ${perDay} as d from (values ($1::text, $2::int)) as w(plan, custom_rpm)`,
          [plan, customRpm],
        );
        const want = limitsFor(plan, customRpm);
        assert.deepEqual([row!.m, row!.d], [want.perMinute, want.perDay], `${plan}, customRpm ${customRpm}`);
      }
    }
  });
});
