import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEventView } from '../../server/modules/audit/schemas';
import { expectStatus } from '../expect';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute } from '../executions/helpers';
import { dashboardCall, testSessions } from '../dashboard';

// Every change through the API, the dashboard and the admin CLI leaves its audit record
// (docs/audit.md): each kind of resource, with what changed and never a secret; sign-ins too.

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions(), env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
after(() => api?.close());

type List = { data: AuditEventView[] };
async function records(o: SeededKey, query = ''): Promise<AuditEventView[]> {
  const reader = await api.seed.key({ workspace: o.workspace, environment: o.environment, scopes: ['audit:read'] });
  const res = await api.request<List>('GET', `/v1/audit-events?limit=100${query}`, { key: reader.key });
  expectStatus(res, 200);
  return res.body.data;
}
const actions = (list: AuditEventView[], actorId: string) =>
  list
    .filter((r) => (r.actor as { id?: string }).id === actorId)
    .map((r) => r.action)
    .reverse();

describe('records of each kind of change over the API', () => {
  it('agents: created, updated (what changed, MCP header values masked), tool secret rotated, deleted', async () => {
    const o = await api.seed.key();
    const agent = await createAgent(api, o.key, { name: 'Support', tools: [{ type: 'mcp', name: 'Docs', url: 'https://93.184.215.14/mcp', headers: { Authorization: 'Bearer mcp-secret-123' } }] });
    expectStatus(await api.request('PATCH', `/v1/agents/${agent}`, { key: o.key, body: { name: 'Support v2', maxSteps: 7 } }), 200);
    const rotated = await api.request<{ toolSecret: string }>('POST', `/v1/agents/${agent}/rotate-tool-secret`, { key: o.key });
    expectStatus(rotated, 200);
    expectStatus(await api.request('DELETE', `/v1/agents/${agent}`, { key: o.key }), 200);
    const list = await records(o, `&targetId=${agent}`);
    assert.deepEqual(actions(list, o.id), ['agent.created', 'agent.updated', 'agent.tool_secret_rotated', 'agent.deleted']);
    const updated = list.find((r) => r.action === 'agent.updated')!;
    assert.deepEqual(updated.changes, { name: ['Support', 'Support v2'], maxSteps: [updated.changes!.maxSteps![0], 7], version: [1, 2] }, 'a behaviour change is a version');
    assert.deepEqual(list.find((r) => r.action === 'agent.tool_secret_rotated')!.changes, { toolSecret: [null, 'rotated'] });
    const text = JSON.stringify(list);
    assert.ok(!text.includes('mcp-secret-123') && !text.includes(rotated.body.toolSecret), 'never a secret');
  });

  // The attack review of 2026-11-28: swapping an MCP header value recorded `changes: null`, and
  // deleting an agent recorded nothing of the schedule it deleted or the run it cancelled.
  it('agents: a swapped MCP header value shows as rotated; a deletion records the schedules it deleted and the runs it cancelled', async () => {
    const o = await api.seed.key();
    const mcp = (auth: string) => ({ type: 'mcp', name: 'Docs', url: 'https://93.184.215.14/mcp', headers: { Authorization: auth, 'X-Team': 'blue' } });
    const refund = { type: 'http', name: 'refund', description: 'Refunds', url: 'https://93.184.215.14/refund', parameters: { type: 'object', properties: { query: { type: 'string' } } }, approval: 'always' };
    const agent = await createAgent(api, o.key, { name: 'Support', tools: [mcp('Bearer old-secret-1'), refund] });
    // Only one value swapped (the other sent back masked): recorded as rotated, never the value.
    expectStatus(await api.request('PATCH', `/v1/agents/${agent}`, { key: o.key, body: { tools: [{ ...mcp('Bearer new-secret-2'), headers: { Authorization: 'Bearer new-secret-2', 'X-Team': '********' } }, refund] } }), 200);
    // Sent back masked, nothing changed: nothing rotated.
    expectStatus(await api.request('PATCH', `/v1/agents/${agent}`, { key: o.key, body: { tools: [{ ...mcp('********'), headers: { Authorization: '********', 'X-Team': '********' } }, refund] } }), 200);
    // (The MCP server is not reachable here: a run needs the agent without it.)
    expectStatus(await api.request('PATCH', `/v1/agents/${agent}`, { key: o.key, body: { tools: [refund] } }), 200);
    const s = await api.request<{ id: string }>('POST', '/v1/schedules', { key: o.key, body: { agentId: agent, cron: '0 9 * * *', input: 'hello' } });
    expectStatus(s, 201);
    const paused = await execute(api, o.key, agent, { input: 'please refund order 7', wait: true });
    assert.equal(paused.body.status, 'requires_action');
    expectStatus(await api.request('DELETE', `/v1/agents/${agent}`, { key: o.key }), 200);

    const updates = (await records(o, `&targetId=${agent}&action=agent.updated`)).reverse();
    assert.deepEqual(updates[0]!.changes, { 'tools.Docs.headers.Authorization': [null, 'rotated'], version: [1, 2] });
    assert.equal(updates[1]!.changes, null, 'a no-op shows no change');
    const scheduleGone = (await records(o, `&targetId=${s.body.id}`)).find((r) => r.action === 'schedule.deleted')!;
    assert.equal((scheduleGone.actor as { id: string }).id, o.id);
    assert.deepEqual(scheduleGone.changes!.cause, [null, 'agent.deleted']);
    const cancelled = (await records(o, `&targetId=${paused.body.id}`)).find((r) => r.action === 'execution.cancelled')!;
    assert.deepEqual(cancelled.changes, { status: ['requires_action', 'cancelled'], cause: [null, 'agent.deleted'] });
    const text = JSON.stringify(await records(o));
    assert.ok(!text.includes('old-secret-1') && !text.includes('new-secret-2'), 'never a secret');
  });

  it('schedules, budgets and webhooks: each change, with the fields that changed', async () => {
    const o = await api.seed.key();
    const agent = await createAgent(api, o.key);
    const sch = await api.request<{ id: string }>('POST', '/v1/schedules', { key: o.key, body: { agentId: agent, cron: '0 9 * * *', input: 'daily report' } });
    expectStatus(sch, 201);
    expectStatus(await api.request('PATCH', `/v1/schedules/${sch.body.id}`, { key: o.key, body: { cron: '0 10 * * *' } }), 200);
    expectStatus(await api.request('POST', `/v1/schedules/${sch.body.id}/run`, { key: o.key }), 202);
    expectStatus(await api.request('DELETE', `/v1/schedules/${sch.body.id}`, { key: o.key }), 200);
    const bdg = await api.request<{ id: string }>('POST', '/v1/budgets', { key: o.key, body: { name: 'Cap', target: { type: 'workspace' }, limit: { tokens: 100 }, period: 'day', action: 'block' } });
    expectStatus(bdg, 201);
    expectStatus(await api.request('PATCH', `/v1/budgets/${bdg.body.id}`, { key: o.key, body: { limit: { tokens: 200 } } }), 200);
    expectStatus(await api.request('DELETE', `/v1/budgets/${bdg.body.id}`, { key: o.key }), 200);
    const hook = await api.request<{ id: string; secret: string }>('POST', '/v1/webhooks', { key: o.key, body: { url: 'https://93.184.215.14/hook', events: ['agent.created'] } });
    expectStatus(hook, 201);
    expectStatus(await api.request('PATCH', `/v1/webhooks/${hook.body.id}`, { key: o.key, body: { enabled: false } }), 200);
    const rotated = await api.request<{ secret: string }>('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`, { key: o.key });
    expectStatus(rotated, 200);
    expectStatus(await api.request('DELETE', `/v1/webhooks/${hook.body.id}`, { key: o.key }), 200);
    const list = await records(o);
    assert.deepEqual(actions(list, o.id), [
      'agent.created',
      'schedule.created',
      'schedule.updated',
      'schedule.run_now',
      'schedule.deleted',
      'budget.created',
      'budget.updated',
      'budget.deleted',
      'webhook.created',
      'webhook.updated',
      'webhook.secret_rotated',
      'webhook.deleted',
    ]);
    const change = (action: string) => list.find((r) => r.action === action)!.changes;
    assert.deepEqual(change('schedule.updated'), { cron: ['0 9 * * *', '0 10 * * *'] });
    assert.deepEqual(change('budget.updated'), { limit: [{ tokens: 100 }, { tokens: 200 }] });
    assert.deepEqual(change('webhook.updated'), { enabled: [true, false], disabledReason: [null, 'manual'] });
    const text = JSON.stringify(list);
    assert.ok(!text.includes(hook.body.secret) && !text.includes(rotated.body.secret), 'never a webhook secret');
  });

  it('executions: cancelled; approvals: each decision and its reason; conversations: deleted', async () => {
    const o = await api.seed.key();
    const refund = { type: 'http', name: 'refund', description: 'Refunds', url: 'https://93.184.215.14/tool', parameters: { type: 'object' }, approval: 'always' };
    const agent = await createAgent(api, o.key, { tools: [refund] });
    const paused = await execute(api, o.key, agent, { input: 'please refund order 7', wait: true });
    expectStatus(paused, 200);
    const call = paused.body.requiredAction!.toolCalls[0]!;
    const decided = await api.request('POST', `/v1/executions/${paused.body.id}/approvals`, { key: o.key, body: { decisions: [{ toolCallId: call.id, approve: false, reason: 'not today' }] } });
    expectStatus(decided, 200);
    const again = await execute(api, o.key, agent, { input: 'please refund order 8', wait: true });
    expectStatus(await api.request('POST', `/v1/executions/${again.body.id}/cancel`, { key: o.key }), 200);
    const done = await execute(api, o.key, await createAgent(api, o.key), { input: 'hello', wait: true });
    expectStatus(await api.request('DELETE', `/v1/conversations/${done.body.conversationId}`, { key: o.key }), 200);
    const list = await records(o);
    assert.deepEqual(actions(list, o.id).filter((a) => a !== 'agent.created'), ['approval.decided', 'execution.cancelled', 'conversation.deleted']);
    const decision = list.find((r) => r.action === 'approval.decided')!;
    assert.deepEqual(decision.target, { type: 'execution', id: paused.body.id });
    assert.deepEqual(decision.changes, { toolCallId: [null, call.id], tool: [null, 'refund'], approved: [null, false], reason: [null, 'not today'] });
    assert.deepEqual(list.find((r) => r.action === 'execution.cancelled')!.changes, { status: ['requires_action', 'cancelled'] });
  });
});

describe('the dashboard face', () => {
  it('records the signed-in user, with the request’s address, user agent and id', async () => {
    const o = await api.seed.key();
    const made = await dashboardCall<{ id: string }>(api, o.workspace, 'mutation', 'keys.create', { name: 'from the dashboard', environment: o.environment });
    assert.equal(made.status, 200);
    const [record] = await records(o, `&targetId=${made.result!.id}`);
    assert.equal(record!.action, 'key.created');
    assert.deepEqual(record!.actor, { type: 'user', id: o.workspace.userId, email: o.workspace.email });
    assert.equal(record!.ip, '127.0.0.1');
    assert.ok(record!.userAgent, 'the browser’s user agent');
    assert.match(record!.requestId!, /^req_/);
  });
});
