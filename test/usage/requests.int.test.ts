// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { eventually } from '../webhooks/helpers';
import { dayStart, usage, usageWhen, type Answer, type RequestRow } from './helpers';

// GET /v1/analytics/requests (docs/analytics.md): /v1 requests of this workspace's keys by
// outcome, refusals included — 401 of a revoked key, 403 of a key without the scope, 429 —
// and nothing for a key that identifies no workspace. Counted within 10 s (each process
// flushes its counts every 2 s).

let api: TestServer;
let reader: SeededKey;
let busy: SeededKey;
let narrow: SeededKey;
let revoked: SeededKey;
let testMode: SeededKey;
let stranger: SeededKey;
const clientMs: number[] = [];

async function call(method: string, path: string, key: string, body?: unknown) {
  const t0 = performance.now();
  const res = await api.request(method, path, { key, ...(body === undefined ? {} : { body }) });
  clientMs.push(performance.now() - t0);
  return res;
}

before(async () => {
  api = await startServer();
  reader = await api.seed.key({ ...UNLIMITED, environment: 'live', name: 'reader' });
  const workspace = reader.workspace;
  busy = await api.seed.key({ workspace, environment: 'live', name: 'busy' });
  narrow = await api.seed.key({ workspace, environment: 'live', name: 'narrow', scopes: ['agents:read'] });
  revoked = await api.seed.key({ workspace, environment: 'live', name: 'revoked' });
  testMode = await api.seed.key({ workspace, environment: 'test', name: 'test mode' });
  stranger = await api.seed.key({ ...UNLIMITED, environment: 'live' });

  for (let i = 0; i < 3; i++) expectStatus(await call('GET', '/v1/agents', busy.key), 200);
  for (let i = 0; i < 2; i++) expectStatus(await call('GET', '/v1/agents/agt_01JD8X41B2C3D4E5F6G7H8J9K0', busy.key), 404);
  expectStatus(await call('POST', '/v1/agents', busy.key, { name: '' }), 400);
  expectStatus(await call('GET', '/v1/no-such-route', busy.key), 404);
  for (let i = 0; i < 2; i++) expectStatus(await call('POST', '/v1/agents', narrow.key, { name: 'x' }), 403);
  expectStatus(await call('GET', '/v1/agents', revoked.key), 200);
  expectStatus(await call('DELETE', `/v1/keys/${revoked.id}`, reader.key), 200);
  for (let i = 0; i < 2; i++) expectError(await call('GET', '/v1/agents', revoked.key), 401, 'api_key_revoked');
  expectStatus(await call('GET', '/v1/agents', testMode.key), 200);
  // Keys that identify nobody: counted nowhere.
  expectStatus(await api.request('GET', '/v1/agents', {}), 401);
  expectStatus(await api.request('GET', '/v1/agents', { key: 'svc_live_sk_notakeyatall' }), 401);
});

after(async () => api?.close());

const rowsOf = (a: Answer<RequestRow>, keyId: string) => a.data.flatMap((b) => b.results).filter((r) => r.keyId === keyId);

function sum(rows: RequestRow[]): Omit<RequestRow, 'keyId' | 'durationMs'> {
  const out = { requests: 0, succeeded: 0, clientErrors: 0, unauthorized: 0, forbidden: 0, rateLimited: 0, serverErrors: 0 };
  for (const r of rows) for (const k of Object.keys(out) as (keyof typeof out)[]) out[k] += r[k];
  return out;
}

describe('GET /v1/analytics/requests', () => {
  it('counts each key’s requests by outcome within 10 s: 2xx, 4xx, 403, and the 401s of a revoked key', async () => {
    const a = await usageWhen<RequestRow>(api, reader.key, 'requests', { start: dayStart(1), groupBy: 'keyId' }, (x) => sum(rowsOf(x, revoked.id)).requests === 3 && sum(rowsOf(x, narrow.id)).requests === 2 && sum(rowsOf(x, busy.id)).requests === 7);
    assert.deepEqual(sum(rowsOf(a, busy.id)), { requests: 7, succeeded: 3, clientErrors: 4, unauthorized: 0, forbidden: 0, rateLimited: 0, serverErrors: 0 });
    assert.deepEqual(sum(rowsOf(a, narrow.id)), { requests: 2, succeeded: 0, clientErrors: 0, unauthorized: 0, forbidden: 2, rateLimited: 0, serverErrors: 0 });
    assert.deepEqual(sum(rowsOf(a, revoked.id)), { requests: 3, succeeded: 1, clientErrors: 0, unauthorized: 2, forbidden: 0, rateLimited: 0, serverErrors: 0 });
    assert.equal(rowsOf(a, testMode.id).length, 0, 'a test key’s requests are test usage');
    const keys = new Set(a.data.flatMap((b) => b.results).map((r) => r.keyId));
    assert.deepEqual([...keys].sort(), [busy.id, narrow.id, reader.id, revoked.id].sort(), 'only identified keys of this workspace and environment');
    assert.equal(a.totals.keyId, undefined);
    assert.equal(a.totals.requests, a.data.flatMap((b) => b.results).reduce((n, r) => n + r.requests, 0));
  });

  it('reports response-time percentiles no longer than the clients saw', async () => {
    const a = (await usage<RequestRow>(api, reader.key, 'requests', { start: dayStart(1), keyId: busy.id })).body;
    const d = a.totals.durationMs!;
    assert.ok(d.p50 <= d.p95 && d.p95 <= d.p99, JSON.stringify(d));
    assert.ok(d.p99 <= Math.max(...clientMs) * 1.05 + 1, `p99 ${d.p99} ms > the slowest client round trip ${Math.max(...clientMs)} ms`);
  });

  it('keeps environments and workspaces apart', async () => {
    const test = await usageWhen<RequestRow>(api, testMode.key, 'requests', { start: dayStart(1), groupBy: 'keyId' }, (x) => sum(rowsOf(x, testMode.id)).requests >= 1);
    assert.deepEqual(new Set(test.data.flatMap((b) => b.results).map((r) => r.keyId)), new Set([testMode.id]));
    const theirs = (await usage<RequestRow>(api, stranger.key, 'requests', { start: dayStart(1), keyId: busy.id })).body;
    assert.equal(theirs.totals.requests, 0, 'another workspace’s key id gives empty rows');
  });

  it('counts 429s of a key over its plan', async () => {
    const limited = await api.seed.key({ plan: 'enterprise', customRpm: 4, environment: 'live', name: 'limited' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.request('GET', '/v1/agents', { key: limited.key })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    // The watcher has the same plan (4 a minute): it asks once the flush wrote the six (a
    // database barrier; it looked after sleeping 2.1 s), then every 2.5 s.
    const watcher = await api.seed.key({ workspace: limited.workspace, environment: 'live', name: 'watcher' });
    await eventually(
      () => api.query<{ n: number }>(sql`select coalesce(sum(succeeded + client_errors + unauthorized + forbidden + rate_limited + server_errors), 0)::int as n
        from usage_request_rollups where key_id = ${limited.id} and granularity = 'day'`),
      ([row]) => row!.n === 6,
      10_000,
      'the six requests flushed',
    );
    const a = await usageWhen<RequestRow>(api, watcher.key, 'requests', { start: dayStart(1), keyId: limited.id }, (x) => x.totals.requests === 6, 10_000, 2_500);
    assert.equal(a.totals.succeeded, 4);
    assert.equal(a.totals.rateLimited, 2);
  });
});
