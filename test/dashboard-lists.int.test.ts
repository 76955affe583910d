// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../db/schema/values';
import { dashboardCall, testSessions, type TrpcResponse } from './dashboard';
import { expectStatus } from './expect';
import { startServer, UNLIMITED, type TestServer, type Workspace } from './harness';
import { createAgent, execute, type Execution } from './executions/helpers';

// The dashboard's Schedules and Conversations pages (issue 44, item 6) read through the same
// procedures as /v1 — schedules.list/get, conversations.list/get, executions.list filtered by
// scheduleId or conversationId — plus one of their own, schedules.upcoming (a saved schedule's
// next runs). Each is checked on the server: another workspace's or environment's schedule or
// conversation is not found (and filters by its id find nothing), a viewer reads them all and
// changes none of them.

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
});
after(() => api?.close());

const ok = <T>(res: TrpcResponse<T>): T => {
  assert.equal(res.status, 200, JSON.stringify(res.error));
  return res.result as T;
};
const notFound = (res: TrpcResponse<unknown>) => {
  assert.equal(res.status, 404, JSON.stringify(res.error ?? res.result));
  assert.equal(res.error!.data.apiError!.code, 'resource_not_found');
};
const refused = (res: TrpcResponse<unknown>) => {
  assert.equal(res.status, 403, JSON.stringify(res.error ?? res.result));
  assert.equal(res.error!.data.apiError!.code, 'insufficient_role');
};

/** A user of their own who is a member of `ws` with `role`, shown `ws` in the dashboard. */
async function member(ws: Workspace, role: MemberRole): Promise<Workspace> {
  const own = await api.seed.workspace();
  await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${ws.id}, ${own.userId}, ${role})`);
  ok(await dashboardCall(api, own, 'mutation', 'workspaces.switch', { workspaceId: ws.id }));
  return { ...own, id: ws.id };
}

interface Fixture {
  ws: Workspace;
  key: string;
  agentId: string;
  scheduleId: string;
  conversationId: string;
  runId: string;
}

/** A test-mode workspace with an agent, a schedule that has run once and a conversation of two turns. */
async function fixture(): Promise<Fixture> {
  const { key, workspace: ws } = await api.seed.key({ ...UNLIMITED });
  const agentId = await createAgent(api, key, { model: 'sandbox/echo' });
  const made = await api.request<{ id: string }>('POST', '/v1/schedules', { key, body: { agentId, cron: '0 9 * * *', timezone: 'Europe/Berlin', input: 'report' } });
  expectStatus(made, 201);
  const run = await api.request<Execution>('POST', `/v1/schedules/${made.body.id}/run`, { key });
  expectStatus(run, 202);
  const first = await execute(api, key, agentId, { input: 'hello', wait: true });
  expectStatus(first, 200);
  expectStatus(await execute(api, key, agentId, { input: 'again', conversationId: first.body.conversationId, wait: true }), 200);
  return { ws, key, agentId, scheduleId: made.body.id, conversationId: first.body.conversationId, runId: run.body.id };
}

describe('schedules.upcoming: a saved schedule’s next runs', () => {
  it('lists the next runs from nextRunAt in the schedule’s zone; none while paused; none after endAt', async () => {
    const f = await fixture();
    const upcoming = ok(await dashboardCall<{ id: string; timezone: string; runs: string[] }>(api, f.ws, 'query', 'schedules.upcoming', { id: f.scheduleId, count: 3 }));
    const schedule = ok(await dashboardCall<{ nextRunAt: string }>(api, f.ws, 'query', 'schedules.get', { id: f.scheduleId }));
    assert.equal(upcoming.timezone, 'Europe/Berlin');
    assert.equal(upcoming.runs.length, 3);
    assert.equal(upcoming.runs[0], schedule.nextRunAt);
    for (const run of upcoming.runs) {
      const wall = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(new Date(run));
      assert.equal(wall, '09:00', 'each at 09:00 in Berlin');
    }
    assert.equal(Date.parse(upcoming.runs[1]!) - Date.parse(upcoming.runs[0]!) >= 23 * 3_600_000, true, 'a day apart');
    assert.equal(ok(await dashboardCall<{ runs: string[] }>(api, f.ws, 'query', 'schedules.upcoming', { id: f.scheduleId })).runs.length, 5, 'five by default');

    // An end two days after the next run leaves the runs up to it.
    const endAt = new Date(Date.parse(schedule.nextRunAt) + 36 * 3_600_000).toISOString();
    ok(await dashboardCall(api, f.ws, 'mutation', 'schedules.update', { id: f.scheduleId, endAt }));
    assert.equal(ok(await dashboardCall<{ runs: string[] }>(api, f.ws, 'query', 'schedules.upcoming', { id: f.scheduleId })).runs.length, 2);
    ok(await dashboardCall(api, f.ws, 'mutation', 'schedules.update', { id: f.scheduleId, enabled: false }));
    assert.deepEqual(ok(await dashboardCall<{ runs: string[] }>(api, f.ws, 'query', 'schedules.upcoming', { id: f.scheduleId })).runs, []);
  });

  it('refuses a count beyond 10 with the field named', async () => {
    const f = await fixture();
    const res = await dashboardCall(api, f.ws, 'query', 'schedules.upcoming', { id: f.scheduleId, count: 11 });
    assert.equal(res.status, 400);
    assert.equal(res.error!.data.apiError!.param, 'count');
  });
});

describe('another workspace’s or environment’s schedule or conversation is not found', () => {
  it('on every read the pages make; filters by its id find nothing', async () => {
    const f = await fixture();
    const stranger = await api.seed.workspace();
    notFound(await dashboardCall(api, stranger, 'query', 'schedules.get', { id: f.scheduleId }));
    notFound(await dashboardCall(api, stranger, 'query', 'schedules.upcoming', { id: f.scheduleId }));
    notFound(await dashboardCall(api, stranger, 'query', 'conversations.get', { id: f.conversationId }));
    for (const filter of [{ scheduleId: f.scheduleId }, { conversationId: f.conversationId }, { agentId: f.agentId }]) {
      assert.deepEqual(ok(await dashboardCall<{ data: unknown[] }>(api, stranger, 'query', 'executions.list', filter)).data, []);
    }
    assert.deepEqual(ok(await dashboardCall<{ data: unknown[] }>(api, stranger, 'query', 'schedules.list', { agentId: f.agentId })).data, []);
    assert.deepEqual(ok(await dashboardCall<{ data: unknown[] }>(api, stranger, 'query', 'conversations.list', { agentId: f.agentId })).data, []);
    // Nor may they change them.
    notFound(await dashboardCall(api, stranger, 'mutation', 'schedules.run', { id: f.scheduleId }));
    notFound(await dashboardCall(api, stranger, 'mutation', 'conversations.delete', { id: f.conversationId }));

    // The same workspace in live mode does not see the test-mode ones either.
    const live = { environment: 'live' as const };
    notFound(await dashboardCall(api, f.ws, 'query', 'schedules.get', { id: f.scheduleId }, live));
    notFound(await dashboardCall(api, f.ws, 'query', 'schedules.upcoming', { id: f.scheduleId }, live));
    notFound(await dashboardCall(api, f.ws, 'query', 'conversations.get', { id: f.conversationId }, live));
    assert.deepEqual(ok(await dashboardCall<{ data: unknown[] }>(api, f.ws, 'query', 'executions.list', { scheduleId: f.scheduleId }, live)).data, []);
  });

  it('the owner’s own reads find them: the schedule’s runs and the conversation’s executions, in keyset pages', async () => {
    const f = await fixture();
    const runs = ok(await dashboardCall<{ data: { id: string }[] }>(api, f.ws, 'query', 'executions.list', { scheduleId: f.scheduleId }));
    assert.deepEqual(runs.data.map((e) => e.id), [f.runId]);
    const page1 = ok(await dashboardCall<{ data: { id: string }[]; hasMore: boolean; nextCursor: string }>(api, f.ws, 'query', 'executions.list', { conversationId: f.conversationId, limit: 1 }));
    assert.equal(page1.hasMore, true);
    const page2 = ok(await dashboardCall<{ data: { id: string }[]; hasMore: boolean }>(api, f.ws, 'query', 'executions.list', { conversationId: f.conversationId, limit: 1, after: page1.nextCursor }));
    assert.equal(page2.hasMore, false);
    assert.notEqual(page1.data[0]!.id, page2.data[0]!.id);
    const conversation = ok(await dashboardCall<{ messages: { role: string; executionId: string }[] }>(api, f.ws, 'query', 'conversations.get', { id: f.conversationId }));
    assert.deepEqual(conversation.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    const listed = ok(await dashboardCall<{ data: { id: string; messageCount: number }[] }>(api, f.ws, 'query', 'conversations.list', { agentId: f.agentId }));
    assert.equal(listed.data.find((c) => c.id === f.conversationId)?.messageCount, 4);
  });
});

describe('a viewer', () => {
  it('reads schedules, their runs and next runs, conversations and their executions; changes none of them', async () => {
    const f = await fixture();
    const viewer = await member(f.ws, 'viewer');
    ok(await dashboardCall(api, viewer, 'query', 'schedules.list', {}));
    ok(await dashboardCall(api, viewer, 'query', 'schedules.get', { id: f.scheduleId }));
    ok(await dashboardCall(api, viewer, 'query', 'schedules.upcoming', { id: f.scheduleId }));
    ok(await dashboardCall(api, viewer, 'query', 'conversations.list', {}));
    ok(await dashboardCall(api, viewer, 'query', 'conversations.get', { id: f.conversationId }));
    ok(await dashboardCall(api, viewer, 'query', 'executions.list', { conversationId: f.conversationId }));
    refused(await dashboardCall(api, viewer, 'mutation', 'schedules.run', { id: f.scheduleId }));
    refused(await dashboardCall(api, viewer, 'mutation', 'schedules.update', { id: f.scheduleId, enabled: false }));
    refused(await dashboardCall(api, viewer, 'mutation', 'schedules.delete', { id: f.scheduleId }));
    refused(await dashboardCall(api, viewer, 'mutation', 'conversations.delete', { id: f.conversationId }));
    const [row] = await api.query<{ enabled: boolean; runs: number; conversations: number }>(
      sql`select s.enabled, (select count(*)::int from executions where schedule_id = s.id) as runs, (select count(*)::int from conversations where id = ${f.conversationId}) as conversations from schedules s where s.id = ${f.scheduleId}`,
    );
    assert.deepEqual({ ...row }, { enabled: true, runs: 1, conversations: 1 }, 'nothing changed');
  });
});
