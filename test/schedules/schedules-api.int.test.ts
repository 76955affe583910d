// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus, ISO_MS } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { createAgent, execute, waitFor, type Execution } from '../executions/helpers';

// /v1/schedules as a client sees it (docs/api.md, "Schedules"): create with `nextRunAt`, list
// (filter by agent), read, update (timing changes compute `nextRunAt` again), delete, run now;
// validation in the envelope with `param` and nothing written on a refusal; the limit of 100
// under concurrent creates; the three events; deleting the agent deletes its schedules; the
// security suite on each route. When schedules fire: ticker.int.test.ts.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

interface Schedule {
  id: string;
  agentId: string;
  cron: string;
  timezone: string;
  input: string;
  conversationId: string | null;
  overlap: string;
  endAt: string | null;
  enabled: boolean;
  metadata: Record<string, string>;
  label: string | null;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastExecutionId: string | null;
  environment: string;
  createdAt: string;
  updatedAt: string;
}

const owner = (): Promise<SeededKey> => api.seed.key({ ...UNLIMITED });

async function createSchedule(key: string, body: Record<string, unknown>): Promise<Schedule> {
  const res = await api.request<Schedule>('POST', '/v1/schedules', { key, body: { cron: '0 9 * * *', input: 'Daily report', ...body } });
  expectStatus(res, 201);
  return res.body;
}

async function count(workspaceId: string, table = 'schedules'): Promise<number> {
  const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from ${sql.raw(table)} where workspace_id = ${workspaceId}`);
  return row!.n;
}

async function eventTypes(workspaceId: string): Promise<string[]> {
  const rows = await api.query<{ type: string }>(sql`select type from events where workspace_id = ${workspaceId} and type like 'schedule.%' order by id`);
  return [...rows].map((r) => r.type);
}

describe('create, read, list, update, delete', () => {
  it('creates a schedule: 201 with the fields of docs/api.md and its next run in its time zone; reads and lists it', async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key);
    const before = Date.now();
    const s = await createSchedule(o.key, { agentId, cron: '30  2 * * *', timezone: 'europe/berlin', metadata: { team: 'ops' } });
    assert.deepEqual(Object.keys(s).sort(), [
      'agentId', 'conversationId', 'createdAt', 'cron', 'enabled', 'endAt', 'environment', 'id', 'input', 'label', 'lastExecutionId',
      'lastRunAt', 'metadata', 'nextRunAt', 'overlap', 'timezone', 'updatedAt',
    ]);
    assert.match(s.id, /^sch_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(s.cron, '30 2 * * *');
    assert.equal(s.timezone, 'Europe/Berlin');
    assert.equal(s.overlap, 'skip');
    assert.equal(s.enabled, true);
    assert.equal(s.conversationId, null);
    assert.equal(s.lastRunAt, null);
    assert.equal(s.environment, o.environment);
    assert.match(s.nextRunAt!, ISO_MS);
    // 02:30 Berlin time, within the next day.
    const next = new Date(s.nextRunAt!);
    assert.ok(next.getTime() > before && next.getTime() <= before + 25 * 3600_000);
    assert.equal(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(next), '02:30');
    expectStatus(await api.request('GET', `/v1/schedules/${s.id}`, { key: o.key }), 200);
    assert.deepEqual((await api.request('GET', `/v1/schedules/${s.id}`, { key: o.key })).body, s);
    const other = await createSchedule(o.key, { agentId: await createAgent(api, o.key) });
    const all = await api.request<{ data: Schedule[] }>('GET', '/v1/schedules', { key: o.key });
    assert.deepEqual(all.body.data.map((x) => x.id), [other.id, s.id]);
    const mine = await api.request<{ data: Schedule[] }>('GET', `/v1/schedules?agentId=${agentId}`, { key: o.key });
    assert.deepEqual(mine.body.data, [s]);
    assert.deepEqual(await eventTypes(o.workspace.id), ['schedule.created', 'schedule.created']);
  });

  it('updates the fields given; a timing change computes nextRunAt again, disabling clears it', async () => {
    const o = await owner();
    const s = await createSchedule(o.key, { agentId: await createAgent(api, o.key), metadata: { a: '1' } });
    const res = await api.request<Schedule>('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { cron: '*/5 * * * *', input: 'Now every five minutes' } });
    expectStatus(res, 200);
    assert.equal(res.body.cron, '*/5 * * * *');
    assert.equal(res.body.input, 'Now every five minutes');
    assert.deepEqual(res.body.metadata, { a: '1' });
    const next = new Date(res.body.nextRunAt!);
    assert.equal(next.getUTCMinutes() % 5, 0);
    assert.ok(next.getTime() - Date.now() <= 5 * 60_000);
    const off = await api.request<Schedule>('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { enabled: false } });
    assert.equal(off.body.enabled, false);
    assert.equal(off.body.nextRunAt, null);
    const on = await api.request<Schedule>('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { enabled: true, overlap: 'enqueue' } });
    assert.equal(on.body.nextRunAt, res.body.nextRunAt);
    assert.equal(on.body.overlap, 'enqueue');
    // An end before the next occurrence would leave a schedule that never runs: refused, unchanged
    // (it used to stay enabled with nextRunAt null).
    const soon = new Date(Date.now() + 1000).toISOString();
    const ending = await api.request('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { cron: '0 0 1 1 *', endAt: soon } });
    expectError(ending, 400, 'invalid_parameter', 'endAt');
    assert.equal((await api.request<Schedule>('GET', `/v1/schedules/${s.id}`, { key: o.key })).body.cron, '*/5 * * * *');
    assert.deepEqual(await eventTypes(o.workspace.id), ['schedule.created', 'schedule.updated', 'schedule.updated', 'schedule.updated']);
  });

  it('deletes: 200 {id, deleted}, then 404; deleting the agent deletes its schedules, with their events', async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key);
    const [a, b] = [await createSchedule(o.key, { agentId }), await createSchedule(o.key, { agentId })];
    const res = await api.request('DELETE', `/v1/schedules/${a.id}`, { key: o.key });
    expectStatus(res, 200);
    assert.deepEqual(res.body, { id: a.id, deleted: true });
    expectError(await api.request('GET', `/v1/schedules/${a.id}`, { key: o.key }), 404, 'resource_not_found', 'id');
    expectError(await api.request('DELETE', `/v1/schedules/${a.id}`, { key: o.key }), 404, 'resource_not_found', 'id');
    expectStatus(await api.request('DELETE', `/v1/agents/${agentId}`, { key: o.key }), 200);
    expectError(await api.request('GET', `/v1/schedules/${b.id}`, { key: o.key }), 404, 'resource_not_found', 'id');
    assert.equal(await count(o.workspace.id), 0);
    assert.deepEqual(await eventTypes(o.workspace.id), ['schedule.created', 'schedule.created', 'schedule.deleted', 'schedule.deleted']);
    // A deleted agent takes no new schedule.
    expectError(await api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '* * * * *', input: 'x' } }), 404, 'resource_not_found', 'agentId');
  });
});

describe('run now', () => {
  it('202 with a queued execution (trigger schedule); it runs, is listed by scheduleId and is the schedule’s last run; nextRunAt is unchanged', async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key);
    const s = await createSchedule(o.key, { agentId, input: 'Hello from a schedule', enabled: false, metadata: { source: 'cron' } });
    const res = await api.request<Execution>('POST', `/v1/schedules/${s.id}/run`, { key: o.key });
    expectStatus(res, 202);
    assert.equal(res.body.status, 'queued');
    assert.equal(res.body.input, 'Hello from a schedule');
    assert.deepEqual(res.body.metadata, { source: 'cron' });
    assert.equal(res.body.trigger.type, 'schedule');
    assert.equal((res.body.trigger as { scheduleId: string }).scheduleId, s.id);
    const done = await waitFor(api, o.key, res.body.id);
    assert.equal(done.status, 'succeeded');
    const listed = await api.request<{ data: Execution[] }>('GET', `/v1/executions?scheduleId=${s.id}`, { key: o.key });
    assert.deepEqual(listed.body.data.map((e) => e.id), [res.body.id]);
    const after = (await api.request<Schedule>('GET', `/v1/schedules/${s.id}`, { key: o.key })).body;
    assert.equal(after.lastExecutionId, res.body.id);
    assert.match(after.lastRunAt!, ISO_MS);
    assert.equal(after.nextRunAt, null);
  });

  it('a schedule pinned to a label runs the version the label points at when each run starts (docs/versions.md)', async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key, { instructions: 'One.' });
    expectStatus(await api.request('PATCH', `/v1/agents/${agentId}`, { key: o.key, body: { instructions: 'Two.' } }), 200);
    expectStatus(await api.request('PUT', `/v1/agents/${agentId}/labels/staging`, { key: o.key, body: { version: 1 } }), 200);
    const s = await createSchedule(o.key, { agentId, label: 'staging', enabled: false });
    assert.equal(s.label, 'staging');
    const first = await api.request<Execution>('POST', `/v1/schedules/${s.id}/run`, { key: o.key });
    expectStatus(first, 202);
    assert.equal(first.body.agentVersion, 1);
    await waitFor(api, o.key, first.body.id);
    expectStatus(await api.request('PUT', `/v1/agents/${agentId}/labels/staging`, { key: o.key, body: { version: 2 } }), 200);
    const second = await api.request<Execution>('POST', `/v1/schedules/${s.id}/run`, { key: o.key });
    assert.equal(second.body.agentVersion, 2, 'the label moved: the next run follows it');
    await waitFor(api, o.key, second.body.id);
    const unpinned = await api.request<Schedule>('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { label: null } });
    assert.equal(unpinned.body.label, null);
    expectError(await api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '0 9 * * *', input: 'x', label: 'nope' } }), 400, 'invalid_parameter', 'label');
    expectError(await api.request('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { label: 'nope' } }), 400, 'invalid_parameter', 'label');
  });

  it('a schedule continuing a busy conversation: 409 conversation_busy, nothing created', async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key, { model: 'sandbox/slow' });
    const first = await execute(api, o.key, agentId, { input: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') });
    expectStatus(first, 202);
    const s = await createSchedule(o.key, { agentId, conversationId: first.body.conversationId });
    assert.equal(s.conversationId, first.body.conversationId);
    expectError(await api.request('POST', `/v1/schedules/${s.id}/run`, { key: o.key }), 409, 'conversation_busy');
    assert.equal(await count(o.workspace.id, 'executions'), 1);
    expectStatus(await api.request('POST', `/v1/executions/${first.body.id}/cancel`, { key: o.key }), 200);
  });
});

describe('validation: 400 with the field, nothing written', () => {
  it('refuses bad crons, zones, ends, agents, conversations and metadata', async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key);
    const foreign = await owner();
    const foreignAgent = await createAgent(api, foreign.key);
    const otherAgent = await createAgent(api, o.key);
    const conv = (await execute(api, o.key, otherAgent, { input: 'hi', wait: true })).body.conversationId;
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ cron: '0 0 9 * * *' }, 400, 'invalid_parameter', 'cron'],
      [{ cron: '@daily' }, 400, 'invalid_parameter', 'cron'],
      [{ cron: 'H * * * *' }, 400, 'invalid_parameter', 'cron'],
      [{ cron: '61 * * * *' }, 400, 'invalid_parameter', 'cron'],
      [{ cron: '0 0 30 2 *' }, 400, 'invalid_parameter', 'cron'],
      [{ cron: '０ * * * *' }, 400, 'invalid_parameter', 'cron'],
      [{ timezone: 'Mars/Olympus' }, 400, 'invalid_parameter', 'timezone'],
      [{ timezone: '+01:00' }, 400, 'invalid_parameter', 'timezone'],
      [{ endAt: new Date(Date.now() - 1000).toISOString() }, 400, 'invalid_parameter', 'endAt'],
      [{ endAt: 'tomorrow' }, 400, 'invalid_parameter', 'endAt'],
      [{ overlap: 'queue' }, 400, 'invalid_parameter', 'overlap'],
      [{ input: '' }, 400, 'invalid_parameter', 'input'],
      [{ agentId: foreignAgent }, 404, 'resource_not_found', 'agentId'],
      [{ agentId: 'agt_nope' }, 404, 'resource_not_found', 'agentId'],
      [{ conversationId: conv }, 400, 'invalid_parameter', 'conversationId'],
      [{ conversationId: 'conv_01JD8X40A0Z9Y8X7W6V5T4S3R2' }, 404, 'resource_not_found', 'conversationId'],
      [{ metadata: JSON.parse('{"__proto__": "x"}') }, 400, 'invalid_parameter', 'metadata'],
      [{ nextRunAt: new Date().toISOString() }, 400, 'unknown_parameter', 'nextRunAt'],
    ];
    for (const [body, status, code, param] of cases) {
      const raw = JSON.stringify({ agentId, cron: '* * * * *', input: 'x', ...body });
      const res = await api.request('POST', '/v1/schedules', { key: o.key, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectError(res, status, code as never, param);
    }
    assert.equal(await count(o.workspace.id), 0);
    const s = await createSchedule(o.key, { agentId });
    expectError(await api.request('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { cron: '* * * * * *' } }), 400, 'invalid_parameter', 'cron');
    expectError(await api.request('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { agentId: otherAgent } }), 400, 'unknown_parameter', 'agentId');
    expectError(await api.request('PATCH', `/v1/schedules/${s.id}`, { key: o.key, body: { conversationId: conv } }), 400, 'invalid_parameter', 'conversationId');
    assert.deepEqual((await api.request('GET', `/v1/schedules/${s.id}`, { key: o.key })).body, s);
  });

  it(`holds 100 schedules per workspace and environment under concurrent creates: the rest 409 schedule_limit_reached`, async () => {
    const o = await owner();
    const agentId = await createAgent(api, o.key);
    const results = await Promise.all(
      Array.from({ length: 106 }, () => api.request('POST', '/v1/schedules', { key: o.key, body: { agentId, cron: '0 * * * *', input: 'x' } })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 100);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, 'schedule_limit_reached');
    assert.equal(await count(o.workspace.id), 100);
    // The other environment has its own 100.
    const live = await api.seed.key({ workspace: o.workspace, environment: o.environment === 'live' ? 'test' : 'live' });
    await createSchedule(live.key, { agentId: await createAgent(api, live.key) });
  });
});

// ---- the security suite on every route ----

const helperKey = (o: SeededKey) => api.seed.key({ workspace: o.workspace, environment: o.environment });
async function madeSchedule(o: SeededKey): Promise<string> {
  const admin = await helperKey(o);
  return (await createSchedule(admin.key, { agentId: await createAgent(api, admin.key) })).id;
}
const listIds = (body: unknown) => (body as { data: { id: string }[] }).data.map((s) => s.id);

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/schedules',
  scope: 'agents:write',
  successStatus: 201,
  bodyFor: async (_api, o) => ({ agentId: await createAgent(api, (await helperKey(o)).key), cron: '0 9 * * *', input: 'x' }),
});
securitySuite(() => api, { method: 'GET', path: '/v1/schedules', scope: 'agents:read', successStatus: 200, create: (_api, o) => madeSchedule(o), listIds });
securitySuite(() => api, { method: 'GET', path: '/v1/schedules/{id}', scope: 'agents:read', successStatus: 200, create: (_api, o) => madeSchedule(o) });
securitySuite(() => api, {
  method: 'PATCH',
  path: '/v1/schedules/{id}',
  scope: 'agents:write',
  successStatus: 200,
  body: () => ({ input: 'changed' }),
  create: (_api, o) => madeSchedule(o),
});
securitySuite(() => api, { method: 'DELETE', path: '/v1/schedules/{id}', scope: 'agents:write', successStatus: 200, create: (_api, o) => madeSchedule(o) });
securitySuite(() => api, { method: 'POST', path: '/v1/schedules/{id}/run', scope: 'agents:write', successStatus: 202, create: (_api, o) => madeSchedule(o) });
