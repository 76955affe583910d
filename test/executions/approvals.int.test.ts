import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventually } from '../eventually';
import { expectError, expectStatus } from '../expect';
import type { ToolServer } from '../fakes/tool-server';
import type { SeededKey, TestServer } from '../harness';
import { execute, readStream, startWithTools, waitFor, type Execution } from './helpers';

// Approvals (docs/approvals.md): a tool whose calls need a person's decision pauses the run in
// `requires_action`; POST /v1/executions/:id/approvals decides; an approved call runs exactly
// once, a denied one is answered to the model; cancel and expiry end the wait.

let api: TestServer;
let tools: ToolServer;
let owner: SeededKey;
let close: (() => Promise<void>) | undefined;

// USAGE_COMPACT_SECONDS: an hour, so that a run's usage record stays where a test reads it; every
// 2 s (the default) the compactor could move it into the rollups first, and the read never found it.
before(async () => ({ api, tools, owner, close } = await startWithTools({ EXECUTION_HEARTBEAT_SECONDS: '0.5', EXECUTION_LOST_AFTER_SECONDS: '5', USAGE_COMPACT_SECONDS: '3600' })));
after(async () => close?.());

const refund = (approval: unknown = 'always') => ({
  type: 'http',
  name: 'refund',
  description: 'Refunds an order',
  url: `${tools.url}/echo`,
  method: 'POST',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
  approval,
});

async function pausedRun(agentBody: Record<string, unknown> = {}): Promise<{ agentId: string; exe: Execution; callId: string }> {
  const res = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'Refunds', tools: [refund()], ...agentBody } });
  expectStatus(res, 201);
  const run = await execute(api, owner.key, res.body.id, { input: 'please refund order 7', wait: true });
  expectStatus(run, 200);
  assert.equal(run.body.status, 'requires_action', JSON.stringify(run.body.error));
  return { agentId: res.body.id, exe: run.body, callId: run.body.requiredAction!.toolCalls[0]!.id };
}

const decide = (id: string, body: Record<string, unknown>, key = owner.key) => api.request<Execution>('POST', `/v1/executions/${id}/approvals`, { key, body });
const refundCalls = (since: number) => tools.requests.slice(since).filter((r) => r.path === '/echo');

describe('approvals', () => {
  it('a call that needs approval pauses the run: requires_action, nothing called, the stream ends at the request', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun();
    assert.equal(exe.requiredAction!.type, 'approve_tool_calls');
    const [call] = exe.requiredAction!.toolCalls;
    assert.equal(call!.tool, 'refund');
    assert.deepEqual(call!.arguments, { query: 'order 7' });
    const ttl = Date.parse(call!.expiresAt) - Date.parse(call!.requestedAt);
    assert.equal(ttl, 86_400_000, 'the default approvalTimeoutSeconds is a day');
    assert.equal(refundCalls(before).length, 0, 'the tool was not called');
    assert.equal(exe.completedAt, null);

    const listed = await api.request<{ data: Execution[] }>('GET', '/v1/executions?status=requires_action', { key: owner.key });
    expectStatus(listed, 200);
    assert.ok(listed.body.data.some((e) => e.id === exe.id));

    const events = await api.request<{ data: { type: string; data: { object: Execution } }[] }>('GET', '/v1/events?type=execution.requires_action', { key: owner.key });
    expectStatus(events, 200);
    assert.ok(events.body.data.some((e) => JSON.stringify(e).includes(exe.id)), 'execution.requires_action is an event of /v1/events');

    const stream = await readStream(`${api.url}/v1/executions/${exe.id}/stream`, { key: owner.key }, 5_000);
    const last = stream.events.at(-1)!;
    assert.equal(last.event, 'tool.approval_requested');
    assert.deepEqual((last.data.toolCalls as { id: string }[]).map((c) => c.id), [callId]);
    assert.equal((last.data.execution as Execution).status, 'requires_action');
  });

  it('approving with edited arguments runs the call once, with those arguments, and the run finishes', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun();
    const res = await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true, arguments: { query: 'order 8' } }], wait: true });
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
    assert.equal(res.body.requiredAction, null);
    const calls = refundCalls(before);
    assert.equal(calls.length, 1, 'called exactly once');
    assert.deepEqual(JSON.parse(calls[0]!.body), { query: 'order 8' });
    assert.equal(calls[0]!.headers['idempotency-key'], callId);
    const step = res.body.steps[0]!;
    assert.deepEqual(step.toolCalls[0]!.approval?.decidedBy, { type: 'key', id: owner.id });
    assert.deepEqual(step.toolCalls[0]!.approval?.arguments, { query: 'order 8' });
    assert.equal(step.toolResults.length, 1);
    assert.match(res.body.output!, /refund tool returned/);

    const again = await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] });
    expectError(again, 409, 'execution_not_awaiting_approval');
    const stream = await readStream(`${api.url}/v1/executions/${exe.id}/stream`, { key: owner.key }, 5_000);
    const types = stream.events.map((e) => e.event);
    assert.deepEqual(types.filter((t) => t.startsWith('tool.approval') || t.startsWith('execution.')), [
      'execution.started',
      'tool.approval_requested',
      'tool.approval_decided',
      'execution.started',
      'execution.succeeded',
    ]);
  });

  it('the time spent awaiting a decision is left out of the run’s duration', async () => {
    const { exe, callId } = await pausedRun();
    await new Promise((r) => setTimeout(r, 1_500));
    const res = await decide(exe.id, { decisions: [{ toolCallId: callId, approve: false }], wait: true });
    assert.equal(res.body.status, 'succeeded');
    // The usage record is written by the statement that finishes the run (docs/analytics.md).
    const [row] = await eventually(
      'the run’s usage record',
      () => api.query<{ awaited_ms: number; duration_ms: number }>(sql`select e.awaited_ms, u.duration_ms from executions e join usage_execution_records u on u.execution_id = e.id where e.id = ${exe.id}`),
      (rows) => rows.length > 0,
      { everyMs: 50 },
    );
    assert.ok(row!.awaited_ms >= 1_400, `awaited ${row!.awaited_ms} ms`);
    assert.ok(row!.duration_ms < 1_000, `duration ${row!.duration_ms} ms`);
  });

  it('a denied call is answered to the model with its reason, and never called', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun();
    const res = await decide(exe.id, { decisions: [{ toolCallId: callId, approve: false, reason: 'not today' }], wait: true });
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded');
    assert.equal(refundCalls(before).length, 0);
    assert.deepEqual(res.body.steps[0]!.toolResults[0]!.result, { denied: true, reason: 'not today' });
    assert.match(res.body.output!, /"denied":true/);
  });

  it('bad decisions are refused whole, in the envelope', async () => {
    const { exe, callId } = await pausedRun();
    expectError(await decide(exe.id, { decisions: [{ toolCallId: 'call_nope', approve: true }] }), 400, 'invalid_parameter', 'decisions.0.toolCallId');
    expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true, arguments: { query: 5 } }] }), 400, 'invalid_parameter', 'decisions.0.arguments');
    expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: false, arguments: { query: 'x' } }] }), 400, 'parameter_conflict', 'decisions.0.arguments');
    expectError(
      await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }, { toolCallId: callId, approve: false }] }),
      400,
      'invalid_parameter',
      'decisions.1.toolCallId',
    );
    expectError(await decide(exe.id, { decisions: [] }), 400, 'invalid_parameter', 'decisions');
    // zod would drop it silently (the call would run without it): refused, naming the field.
    const proto = await api.request('POST', `/v1/executions/${exe.id}/approvals`, {
      key: owner.key,
      headers: { 'content-type': 'application/json' },
      rawBody: `{"decisions":[{"toolCallId":"${callId}","approve":true,"arguments":{"__proto__":{"x":1},"query":"y"}}]}`,
    });
    expectError(proto, 400, 'invalid_parameter', 'decisions.0.arguments');
    expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true, reason: 'x'.repeat(1_001) }] }), 400, 'invalid_parameter', 'decisions.0.reason');
    expectError(await decide('exe_01JD8X40A1B2C3D4E5F6G7H8J9', { decisions: [{ toolCallId: callId, approve: true }] }), 404, 'resource_not_found');
    const now = await api.request<Execution>('GET', `/v1/executions/${exe.id}`, { key: owner.key });
    assert.equal(now.body.status, 'requires_action', 'nothing was decided');
    assert.equal(now.body.requiredAction!.toolCalls.length, 1);
  });

  it('another workspace or environment cannot see or decide it; a key without agents:execute cannot decide', async () => {
    const { exe, callId } = await pausedRun();
    const stranger = await api.seed.key({});
    const live = await api.seed.key({ workspace: owner.workspace, environment: 'live' });
    const reader = await api.seed.key({ workspace: owner.workspace, scopes: ['agents:read'] });
    for (const key of [stranger.key, live.key]) expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] }, key), 404, 'resource_not_found');
    expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] }, reader.key), 403, 'insufficient_scope');
    expectStatus(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: false }] }), 200);
  });

  it('two decisions racing: one wins, the other is 409, the call runs once', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun();
    const [a, b] = await Promise.all([
      decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] }),
      decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] }),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [200, 409]);
    const lost = a.status === 409 ? a : b;
    assert.ok(['tool_call_already_decided', 'execution_not_awaiting_approval'].includes((lost.body as unknown as { error: { code: string } }).error.code));
    const done = await waitFor(api, owner.key, exe.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(refundCalls(before).length, 1);
  });

  it('a retried request with the same Idempotency-Key answers the same, and the call runs once', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun();
    const body = { decisions: [{ toolCallId: callId, approve: true }] };
    const headers = { 'idempotency-key': `approve-${exe.id}` };
    const first = await api.request<Execution>('POST', `/v1/executions/${exe.id}/approvals`, { key: owner.key, body, headers });
    expectStatus(first, 200);
    const again = await api.request<Execution>('POST', `/v1/executions/${exe.id}/approvals`, { key: owner.key, body, headers });
    expectStatus(again, 200);
    assert.equal(again.text, first.text, 'the same answer, replayed');
    assert.equal((await waitFor(api, owner.key, exe.id)).status, 'succeeded');
    assert.equal(refundCalls(before).length, 1);
  });

  it('stream: true follows the run from the decisions on', async () => {
    const { exe, callId } = await pausedRun();
    const res = await readStream(`${api.url}/v1/executions/${exe.id}/approvals`, { method: 'POST', key: owner.key, body: { decisions: [{ toolCallId: callId, approve: true }], stream: true } });
    assert.equal(res.status, 200);
    const types = res.events.map((e) => e.event);
    assert.equal(types[0], 'tool.approval_decided');
    assert.ok(types.includes('tool.result'), types.join(','));
    assert.equal(types.at(-1), 'execution.succeeded');
  });

  it('cancel ends a paused run; its calls never run', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun();
    const res = await api.request<Execution>('POST', `/v1/executions/${exe.id}/cancel`, { key: owner.key });
    expectStatus(res, 200);
    assert.equal(res.body.status, 'cancelled');
    assert.equal(res.body.requiredAction, null);
    expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] }), 409, 'execution_not_awaiting_approval');
    assert.equal(refundCalls(before).length, 0);
  });

  it('a call still pending at its expiry is denied as "expired" by the service, and the run goes on', async () => {
    const before = tools.requests.length;
    const { exe } = await pausedRun({ approvalTimeoutSeconds: 60 });
    // Its expiry moved into the past (the sweep runs every heartbeat).
    await api.db.execute(sql`update executions set approval_due_at = now() - interval '1 second',
      approval = jsonb_set(approval::jsonb, '{calls,0,expiresAt}', to_jsonb((now() - interval '1 second')::text))::json where id = ${exe.id}`);
    const done = await waitFor(api, owner.key, exe.id, undefined, 10_000);
    assert.equal(done.status, 'succeeded');
    const approval = done.steps[0]!.toolCalls[0]!.approval!;
    assert.equal(approval.approved, false);
    assert.equal(approval.reason, 'expired');
    assert.deepEqual(approval.decidedBy, { type: 'system' });
    assert.deepEqual(done.steps[0]!.toolResults[0]!.result, { denied: true, reason: 'expired' });
    assert.equal(refundCalls(before).length, 0);
  });

  // The attack review of 2026-11-28: 3 of 3 approvals 160–230 ms after `expiresAt` ran the tool
  // (only the sweep compared the clock). Now a decision after it is 409 whether or not the sweep ran.
  it('a decision after expiresAt is 409 approval_expired and never runs the call, before the sweep and after it', async () => {
    const before = tools.requests.length;
    const { exe, callId } = await pausedRun({ approvalTimeoutSeconds: 60 });
    // Expired 200 ms ago; `approval_due_at` still ahead, so no sweep has denied it.
    await api.db.execute(sql`update executions set
      approval = jsonb_set(approval::jsonb, '{calls,0,expiresAt}', to_jsonb(to_char((now() - interval '200 milliseconds') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::json where id = ${exe.id}`);
    const late = expectError(await decide(exe.id, { decisions: [{ toolCallId: callId, approve: true }] }), 409, 'approval_expired');
    assert.equal(late.param, 'decisions.0.toolCallId');
    // Denied as the sweep would have, at once, and the run goes on without the call.
    const done = await waitFor(api, owner.key, exe.id, undefined, 10_000);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(done.steps[0]!.toolCalls[0]!.approval!.decidedBy, { type: 'system' });
    assert.equal(done.steps[0]!.toolCalls[0]!.approval!.reason, 'expired');
    assert.equal(refundCalls(before).length, 0, 'the tool was never called');

    // After the sweep denied it: the same answer, not "decided already".
    const { fixedClock } = await import('../../server/modules/executions/lifecycle');
    const { expireApprovals } = await import('../../server/modules/executions/pause');
    const second = await pausedRun();
    await expireApprovals(api.db, fixedClock(Date.now() + 2 * 86_400_000));
    expectError(await decide(second.exe.id, { decisions: [{ toolCallId: second.callId, approve: true }] }), 409, 'approval_expired');
  });

  it('the expiry sweep goes on batch after batch within its budget: three runs due, batches of one, all denied in one sweep', async () => {
    const { fixedClock } = await import('../../server/modules/executions/lifecycle');
    const { expireApprovals } = await import('../../server/modules/executions/pause');
    const runs = [await pausedRun(), await pausedRun(), await pausedRun()];
    // A clock two days on (the calls expire in one): the server's own sweep, on the database's clock, leaves them be.
    const expired = await expireApprovals(api.db, fixedClock(Date.now() + 2 * 86_400_000), 1);
    for (const r of runs) assert.ok(expired.includes(r.exe.id), `${r.exe.id} expired in the one sweep`);
    for (const r of runs) assert.equal((await waitFor(api, owner.key, r.exe.id)).steps[0]!.toolCalls[0]!.approval?.reason, 'expired');
  });

  it('the agent takes and shows the policy; bad policies and timeouts are refused', async () => {
    const res = await api.request<{ id: string; tools: { approval: unknown }[]; approvalTimeoutSeconds: number }>('POST', '/v1/agents', {
      key: owner.key,
      body: { name: 'Policies', tools: [refund('never'), { type: 'mcp', name: 'docs', url: `${tools.url}/mcp`, approval: { tools: ['delete_page'] } }] },
    });
    expectStatus(res, 201);
    assert.deepEqual(res.body.tools.map((t) => t.approval), ['never', { tools: ['delete_page'] }]);
    assert.equal(res.body.approvalTimeoutSeconds, 86_400);
    const patched = await api.request<{ approvalTimeoutSeconds: number }>('PATCH', `/v1/agents/${res.body.id}`, { key: owner.key, body: { approvalTimeoutSeconds: 600 } });
    expectStatus(patched, 200);
    assert.equal(patched.body.approvalTimeoutSeconds, 600);
    const bad = (body: Record<string, unknown>) => api.request('POST', '/v1/agents', { key: owner.key, body: { name: 'Bad', ...body } });
    expectError(await bad({ tools: [refund('sometimes')] }), 400, 'invalid_parameter', 'tools.0.approval');
    expectError(await bad({ approvalTimeoutSeconds: 59 }), 400, 'invalid_parameter', 'approvalTimeoutSeconds');
    expectError(await bad({ approvalTimeoutSeconds: 604_801 }), 400, 'invalid_parameter', 'approvalTimeoutSeconds');
  });
});
