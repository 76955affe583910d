// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type TestServer } from '../harness';
import { createAgent } from '../executions/helpers';

// What a cron may cost the process every tenant shares (docs/security.md, "Schedules"). Found on
// 2026-11-26: a preview of `0 0 * 2 1#5` in America/Santiago (the fifth Monday of February: next
// in 2044) cost 224 ms of CPU, one batched dashboard request of ten held the event loop 1.95 s,
// and a create refused by the limit of 100 still computed the cron first (88 ms). Now every search
// stops at a year and a day, a cron with no run within it is refused on `cron`, the limit comes
// before any search, and a user's previews are counted.

const RARE = '0 0 * 2 1#5';
const ZONE = 'America/Santiago';

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
});
after(() => api?.close());

const count = async (workspaceId: string) =>
  (await api.query<{ n: number }>(sql`select count(*)::int as n from schedules where workspace_id = ${workspaceId}`))[0]!.n;

describe('a cron that runs less than once a year', () => {
  it('is refused on create and update with 400 on cron, saying why; nothing is written', async () => {
    const o = await api.seed.key({ ...UNLIMITED });
    const agentId = await createAgent(api, o.key);
    const refused = await api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: RARE, timezone: ZONE, input: 'x' } });
    expectError(refused, 400, 'invalid_parameter', 'cron');
    assert.match(refused.body.error.message, /no run within a year/);
    // Disabled, it is refused all the same: enabling it later could never give it a run.
    expectError(await api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: RARE, timezone: ZONE, input: 'x', enabled: false } }), 400, 'invalid_parameter', 'cron');
    assert.equal(await count(o.workspace.id), 0);
    const made = await api.request<{ id: string }>('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '0 9 * * *', input: 'x' } });
    expectStatus(made, 201);
    expectError(await api.request('PATCH', `/v1/schedules/${made.body.id}`, { key: o.key, body: { cron: RARE, timezone: ZONE } }), 400, 'invalid_parameter', 'cron');
    // A yearly one is fine.
    expectStatus(await api.request('PATCH', `/v1/schedules/${made.body.id}`, { key: o.key, body: { cron: '0 0 1 1 *' } }), 200);
  });

  it('at the limit of 100, the create is refused by the limit before any run is computed (409, whatever the cron)', async () => {
    const o = await api.seed.key({ ...UNLIMITED });
    const agentId = await createAgent(api, o.key);
    await api.query(sql`
      insert into schedules (id, workspace_id, environment, agent_id, cron, timezone, input, overlap, enabled, metadata, created_at, updated_at)
      select 'sch_' || lpad(i::text, 26, '0'), ${o.workspace.id}, ${o.environment}, ${agentId}, '0 9 * * *', 'UTC', 'x', 'skip', false, '{}'::jsonb, now(), now()
      from generate_series(1, 100) as i`);
    // The CPU of this process (server and embedded database alike) for 20 refused creates of `cron`.
    const refuse = async (cron: string) => {
      const cpu = process.cpuUsage();
      const refused = await Promise.all(Array.from({ length: 20 }, () => api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron, timezone: ZONE, input: 'x' } })));
      const used = process.cpuUsage(cpu);
      for (const r of refused) expectError(r, 409, 'schedule_limit_reached');
      return (used.user + used.system) / 1000;
    };
    const daily = await refuse('0 9 * * *');
    const rare = await refuse(RARE);
    // 20 refusals of the rare cron cost what 20 of a daily one cost (the requests' own handling);
    // before, each searched 18 years first (~0.1–0.2 s each, 2–4 s in all). Compared with the
    // daily ones rather than a fixed figure: a loaded machine makes both dearer.
    assert.ok(rare < Math.max(2 * daily, daily + 600), `CPU: ${rare.toFixed(0)} ms for the rare cron, ${daily.toFixed(0)} ms for a daily one`);
  });
});

describe('endAt', () => {
  it('must be in the future even on a disabled schedule, and may not come before the first run', async () => {
    const o = await api.seed.key({ ...UNLIMITED });
    const agentId = await createAgent(api, o.key);
    const past = new Date(Date.now() - 60_000).toISOString();
    const soon = new Date(Date.now() + 60 * 60_000).toISOString();
    expectError(await api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '0 9 * * *', input: 'x', enabled: false, endAt: past } }), 400, 'invalid_parameter', 'endAt');
    // The first run of a yearly cron comes long after an end an hour away: it would never run.
    for (const enabled of [true, false]) {
      const res = await api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '0 0 1 1 *', input: 'x', enabled, endAt: soon } });
      expectError(res, 400, 'invalid_parameter', 'endAt');
      assert.match(res.body.error.message, /before the schedule's first run/);
    }
    assert.equal(await count(o.workspace.id), 0);
    const made = await api.request<{ id: string }>('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '* * * * *', input: 'x', enabled: false } });
    expectStatus(made, 201);
    expectError(await api.request('PATCH', `/v1/schedules/${made.body.id}`, { key: o.key, body: { endAt: past } }), 400, 'invalid_parameter', 'endAt');
    expectError(await api.request('PATCH', `/v1/schedules/${made.body.id}`, { key: o.key, body: { cron: '0 0 1 1 *', endAt: soon } }), 400, 'invalid_parameter', 'endAt');
    const ok = await api.request<{ enabled: boolean; nextRunAt: string | null }>('PATCH', `/v1/schedules/${made.body.id}`, { key: o.key, body: { enabled: true, endAt: soon } });
    expectStatus(ok, 200);
    assert.equal(ok.body.enabled, true);
    assert.ok(ok.body.nextRunAt && ok.body.nextRunAt <= soon);
  });
});

describe("the dashboard's preview", () => {
  it('refuses a cron with no run within a year, in the words of a create', async () => {
    const ws = await api.seed.workspace();
    const res = await dashboardCall<{ ok: boolean; param?: string; message?: string }>(api, ws, 'query', 'schedules.preview', { cron: RARE, timezone: ZONE });
    assert.equal(res.status, 200);
    assert.equal(res.result?.ok, false);
    assert.equal(res.result?.param, 'cron');
    assert.match(res.result?.message ?? '', /no run within a year/);
  });

  it('one batched request of ten rare previews costs the process little CPU', async () => {
    const ws = await api.seed.workspace();
    const crons = ['0 0 * 2 1#5', '59 23 * 2 1#5', '0 0 * 4 1#5', '0 0 * * 1#5', '0 0 29 2 *', '0 0 * 1,12 1#5', '* * * 2 1#5', '0 0 * * 0#5', '0 0 L 2 *', '0 0 31 * *'];
    const input = Object.fromEntries(crons.map((cron, i) => [String(i), { cron, timezone: ZONE }]));
    const cpu = process.cpuUsage();
    const res = await fetch(`${api.url}/api/trpc/${crons.map(() => 'schedules.preview').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, {
      headers: { 'x-test-user': `${ws.userId} ${ws.id}`, 'x-environment': 'test' },
    });
    const used = process.cpuUsage(cpu);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { result: { data: { ok: boolean } } }[];
    assert.equal(body.length, 10);
    // Before: ~2 s of CPU for this request (224 ms for the first cron alone). Now a few ms a preview.
    assert.ok((used.user + used.system) / 1000 < 500, `CPU: ${(used.user + used.system) / 1000} ms`);
  });

  it('a user gets 60 previews a minute (429 beyond), another user keeps theirs', async () => {
    const ws = await api.seed.workspace();
    const calls = await Promise.all(Array.from({ length: 65 }, (_, i) => dashboardCall(api, ws, 'query', 'schedules.preview', { cron: `${i % 60} 9 * * *`, timezone: 'UTC' })));
    assert.equal(calls.filter((c) => c.status === 200).length, 60);
    const refused = calls.filter((c) => c.status === 429);
    assert.equal(refused.length, 5);
    assert.deepEqual(refused[0]!.error?.data.apiError, { type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null });
    assert.match(refused[0]!.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const other = await api.seed.workspace();
    assert.equal((await dashboardCall(api, other, 'query', 'schedules.preview', { cron: '0 9 * * *', timezone: 'UTC' })).status, 200);
  });
});
