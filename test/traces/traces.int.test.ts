import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { TraceView, SpanView } from '../../server/modules/traces/schemas';
import type { BudgetView } from '../../server/modules/budgets/service';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, waitFor, type Execution } from '../executions/helpers';
import { eventually } from '../eventually';
import { dayStart } from '../usage/helpers';

// Run traces (docs/traces.md): the spans of a run — root, queue, each model call, each tool call,
// each wait for approval — with their GenAI attributes, and the sums: the model calls' tokens and
// cost are the execution's usage, what usage analytics counts and what the budgets charged, to
// the last decimal, on a tool-using run and on a run a budget cut short.

const PRICED = 'openai-compatible/fake-1';

let api: TestServer;
let fake: FakeOpenAI;
let tools: ToolServer;
let mcp: FakeMcpServer;

before(async () => {
  fake = await startFakeOpenAI();
  tools = await startToolServer();
  mcp = await startMcpServer();
  api = await startServer({
    env: {
      OPENAI_COMPATIBLE_BASE_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      MODEL_PRICES: JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } }),
      BUDGET_RESERVE_OUTPUT_TOKENS: '512',
    },
  });
});
after(async () => {
  await api?.close();
  await fake?.close();
  await tools?.close();
  await mcp?.close();
});

const tool = (name: string, path = '/echo') => ({ type: 'http', name, description: `The ${name} tool`, url: `${tools.url}${path}`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } });
const tenant = (): Promise<SeededKey> => api.seed.key({ ...UNLIMITED, environment: 'live' });
const trace = (key: SeededKey, id: string) => api.request<TraceView>('GET', `/v1/executions/${id}/trace`, { key: key.key });
const byName = (t: TraceView, name: SpanView['name']) => t.spans.filter((s) => s.name === name);

/** Whether two decimal strings are the same number (in the database's exact arithmetic). */
async function sameDecimal(a: string | null | undefined, b: string | null | undefined): Promise<boolean> {
  const [row] = await api.query<{ eq: boolean }>(sql`select ${a ?? null}::numeric = ${b ?? null}::numeric as eq`);
  return row!.eq === true;
}

async function budget(key: SeededKey, body: Record<string, unknown>): Promise<BudgetView> {
  const res = await api.request<BudgetView>('POST', '/v1/budgets', { key: key.key, body: { name: 'Cap', period: 'day', ...body } });
  expectStatus(res, 201);
  return res.body;
}

describe('GET /v1/executions/:id/trace', () => {
  it('a tool-using run: root, queue, a model call per step, the tool call under its step; the sums hold to the last decimal', async () => {
    const key = await tenant();
    const watch = await budget(key, { action: 'notify', target: { type: 'workspace' }, limit: { usd: '100' } });
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [tool('lookup')] });
    const run = await execute(api, key.key, agent, { input: 'use lookup for the weather', wait: true });
    expectStatus(run, 200);
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
    assert.match(run.body.traceId, /^[0-9a-f]{32}$/);

    const res = await trace(key, run.body.id);
    expectStatus(res, 200);
    const t = res.body;
    assert.equal(t.traceId, run.body.traceId);
    assert.equal(t.executionId, run.body.id);
    const [root] = byName(t, 'execution');
    assert.ok(root, 'a root span');
    assert.equal(root.parentId, null);
    assert.equal(t.spans[0]!.id, root.id, 'the root first: spans in start order');
    for (const s of t.spans) {
      assert.match(s.id, /^[0-9a-f]{16}$/);
      assert.equal(s.durationMs, Date.parse(s.endedAt) - Date.parse(s.startedAt));
    }
    assert.equal(new Set(t.spans.map((s) => s.id)).size, t.spans.length, 'span ids are unique');
    const [queue] = byName(t, 'queue_wait');
    assert.equal(queue?.parentId, root.id);
    assert.equal(queue?.startedAt, run.body.createdAt);
    assert.equal(queue?.endedAt, run.body.startedAt);

    const calls = byName(t, 'model_call');
    assert.equal(calls.length, run.body.steps.length, 'one model call per step');
    assert.equal(calls.length, 2);
    for (const [i, c] of calls.entries()) {
      assert.equal(c.parentId, root.id);
      assert.equal(c.kind, 'client');
      assert.equal(c.status, 'ok');
      assert.equal(typeof c.firstTokenMs, 'number');
      assert.ok(c.firstTokenMs! <= c.durationMs);
      assert.deepEqual(c.usage, { inputTokens: run.body.steps[i]!.usage.inputTokens, outputTokens: run.body.steps[i]!.usage.outputTokens });
      assert.equal(c.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(c.attributes['gen_ai.provider.name'], 'openai-compatible');
      assert.equal(c.attributes['gen_ai.request.model'], 'fake-1');
      assert.equal(c.attributes['gen_ai.usage.input_tokens'], c.usage!.inputTokens);
      assert.equal(c.attributes['gen_ai.conversation.id'], run.body.conversationId);
      assert.deepEqual(c.attributes['gen_ai.response.finish_reasons'], [i === 0 ? 'tool-calls' : 'stop']);
    }
    const [toolSpan] = byName(t, 'tool_call');
    assert.equal(toolSpan?.parentId, calls[0]!.id, 'the tool call sits under the model call of its step');
    assert.equal(toolSpan?.tool, 'lookup');
    assert.equal(toolSpan?.toolCallId, run.body.steps[0]!.toolCalls[0]!.id);
    assert.equal(toolSpan?.attributes['gen_ai.tool.name'], 'lookup');
    assert.equal(toolSpan?.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.ok(Date.parse(toolSpan!.startedAt) >= Date.parse(calls[0]!.endedAt), 'the tool ran after its call answered');

    assert.equal(root.attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(root.attributes['gen_ai.agent.id'], agent);
    assert.equal(root.attributes['gen_ai.agent.name'], 'Test agent');
    assert.equal(root.attributes['gen_ai.agent.version'], '1', 'the version it ran (docs/versions.md)');
    // The sums: tokens (the execution's usage) and cost (analytics and the budget's ledger), exactly.
    const tokens = calls.reduce((n, c) => ({ inputTokens: n.inputTokens + c.usage!.inputTokens, outputTokens: n.outputTokens + c.usage!.outputTokens }), { inputTokens: 0, outputTokens: 0 });
    assert.deepEqual(tokens, { inputTokens: run.body.usage.inputTokens, outputTokens: run.body.usage.outputTokens });
    assert.deepEqual(root.usage, tokens);
    const [summed] = await api.query<{ usd: string }>(sql`select (${calls[0]!.cost!.usd}::numeric + ${calls[1]!.cost!.usd}::numeric)::text as usd`);
    assert.ok(await sameDecimal(root.cost!.usd, summed!.usd), `the root's cost ${root.cost!.usd} is its calls' ${summed!.usd}`);
    assert.ok(Number(root.cost!.usd) > 0);
    const spent = (await api.request<BudgetView>('GET', `/v1/budgets/${watch.id}`, { key: key.key })).body.spent;
    assert.ok(await sameDecimal(spent.usd, root.cost!.usd), `the budget charged ${spent.usd}, the trace says ${root.cost!.usd}`);
    assert.equal(spent.tokens, tokens.inputTokens + tokens.outputTokens);
    const analytics = await eventually(
      'analytics counts the run',
      async () => (await api.request<{ totals: { costUsd: number | null; inputTokens: number; outputTokens: number } }>('GET', `/v1/analytics/executions?start=${dayStart(1)}`, { key: key.key })).body.totals,
      (totals) => totals.inputTokens > 0,
    );
    assert.equal(analytics.costUsd, Number(root.cost!.usd), 'usage analytics counts the same cost');
    assert.equal(analytics.inputTokens, tokens.inputTokens);
  });

  it('a run a budget cut short: its model calls are what the ledger charged, the root says budget_exceeded', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [tool('lookup', '/wait?ms=1000')] });
    const other = await createAgent(api, key.key, { model: PRICED });
    const cap = await budget(key, { action: 'block', target: { type: 'workspace' }, limit: { tokens: 600 } });
    const running = execute(api, key.key, agent, { input: 'please lookup order 7', wait: true });
    await eventually('the tool called', async () => tools.requests.filter((r) => r.path === '/wait').length, (n) => n >= 1, { timeoutMs: 5_000, everyMs: 20 });
    // While its tool runs, another run's prompt is more than the workspace has left: exceeded.
    const big = await execute(api, key.key, other, { input: `summarise ${'all of this text '.repeat(200)}`, wait: true });
    assert.equal(big.body.error?.code, 'budget_exceeded');
    const run = await running;
    expectStatus(run, 200);
    assert.equal(run.body.status, 'failed');
    assert.equal(run.body.error?.code, 'budget_exceeded', run.body.error?.message);
    const t = (await trace(key, run.body.id)).body;
    const [root] = byName(t, 'execution');
    assert.equal(root!.status, 'error');
    assert.equal(root!.error?.code, 'budget_exceeded');
    const calls = byName(t, 'model_call');
    assert.equal(calls.length, 1, 'the refused call never started: no span');
    assert.equal(byName(t, 'tool_call').length, 1, 'the step’s tool call ran');
    const spent = (await api.request<BudgetView>('GET', `/v1/budgets/${cap.id}`, { key: key.key })).body.spent;
    assert.equal(spent.tokens, calls[0]!.usage!.inputTokens + calls[0]!.usage!.outputTokens, 'the ledger charged the one call the trace shows');
    assert.equal(spent.tokens, run.body.usage.totalTokens);
    assert.ok(await sameDecimal(spent.usd, calls[0]!.cost!.usd));
    assert.ok(await sameDecimal(root!.cost!.usd, calls[0]!.cost!.usd));
  });

  it('a failing tool is an error span; a cancelled run keeps the call it interrupted', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [tool('broken', '/fail')] });
    const run = await execute(api, key.key, agent, { input: 'use broken now', wait: true });
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
    const [failed] = byName((await trace(key, run.body.id)).body, 'tool_call');
    assert.equal(failed?.status, 'error');
    assert.equal(failed?.error?.code, 'tool_error');

    const slow = await createAgent(api, key.key, { model: PRICED });
    const started = await execute(api, key.key, slow, { input: 'a slow answer please' });
    expectStatus(started, 202);
    await waitFor(api, key.key, started.body.id, (e) => e.status === 'running');
    await eventually('the model is called', async () => fake.requests.some((r) => JSON.stringify(r.body).includes('a slow answer please')), Boolean);
    expectStatus(await api.request('POST', `/v1/executions/${started.body.id}/cancel`, { key: key.key }), 200);
    const t = await eventually('the interrupted call is written', async () => (await trace(key, started.body.id)).body, (x) => byName(x, 'model_call').length === 1);
    const [call] = byName(t, 'model_call');
    assert.equal(call!.status, 'error');
    assert.equal(call!.error?.code, 'interrupted');
    const [root] = byName(t, 'execution');
    assert.equal(root!.attributes['aas.execution.status'], 'cancelled');
  });

  it('while it runs: the calls that ended are there at once, written with the run’s next write', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [tool('lookup', '/wait?ms=1500')] });
    const started = await execute(api, key.key, agent, { input: 'use lookup for a live trace' });
    expectStatus(started, 202);
    const before = tools.requests.length;
    await eventually('the tool is called', async () => tools.requests.slice(before).filter((r) => r.path === '/wait').length, (n) => n >= 1, { timeoutMs: 10_000, everyMs: 20 });
    const live = (await trace(key, started.body.id)).body;
    assert.deepEqual(live.spans.map((s) => s.name), ['model_call'], 'the ended call; the root and the tool still open');
    assert.equal((await waitFor(api, key.key, started.body.id)).status, 'succeeded');
    const whole = (await trace(key, started.body.id)).body;
    assert.equal(byName(whole, 'model_call').length, 2);
    assert.equal(byName(whole, 'model_call')[0]!.id, live.spans[0]!.id, 'the same span, written once');
  });

  it('a run paused for approval: the wait is a span, the approved call sits under its step, across the two attempts', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [{ ...tool('refund'), approval: 'always' }] });
    const paused = await execute(api, key.key, agent, { input: 'use refund for order 7', wait: true });
    assert.equal(paused.body.status, 'requires_action', JSON.stringify(paused.body.error));
    const before = (await trace(key, paused.body.id)).body;
    assert.deepEqual(byName(before, 'model_call').length, 1, 'the paused attempt wrote its call with the pause');
    assert.equal(byName(before, 'execution').length, 0, 'no root before the run is final');
    const callId = paused.body.requiredAction!.toolCalls[0]!.id;
    // The decision carries its caller's span (a `traceparent`): the wait links to it.
    const approver = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    const headers = { traceparent: `00-${approver.traceId}-${approver.spanId}-01` };
    const decided = await api.request<Execution>('POST', `/v1/executions/${paused.body.id}/approvals`, { key: key.key, headers, body: { decisions: [{ toolCallId: callId, approve: true }], wait: true } });
    expectStatus(decided, 200);
    assert.equal(decided.body.status, 'succeeded');
    assert.equal(decided.body.traceId, paused.body.traceId, 'the run keeps its trace');
    assert.equal(JSON.stringify(decided.body.steps).includes(approver.traceId), false, 'the decision’s span is the trace’s, not the step’s');
    const t = (await trace(key, paused.body.id)).body;
    const [root] = byName(t, 'execution');
    const [wait] = byName(t, 'approval_wait');
    assert.equal(wait?.parentId, root!.id);
    assert.equal(wait?.startedAt, paused.body.requiredAction!.toolCalls[0]!.requestedAt);
    assert.deepEqual(wait?.links, [approver], 'linked to the span of the request that decided');
    const calls = byName(t, 'model_call');
    assert.equal(calls.length, 2);
    const [refund] = byName(t, 'tool_call');
    assert.equal(refund?.toolCallId, callId);
    assert.equal(refund?.parentId, calls[0]!.id, 'under the model call of the paused step, written by the first attempt');
    assert.ok(Date.parse(refund!.startedAt) >= Date.parse(wait!.endedAt), 'the call ran after the decision');
  });

  it('content only with traceContent: messages, answers, tool arguments and results, each capped at 32 KB, never the tool secret', async () => {
    const key = await tenant();
    const created = await api.request<{ id: string; toolSecret: string; traceContent: boolean }>('POST', '/v1/agents', {
      key: key.key,
      body: { name: 'Told', model: PRICED, instructions: 'Answer briefly.', tools: [tool('big', '/big')], traceContent: true },
    });
    expectStatus(created, 201);
    assert.equal(created.body.traceContent, true);
    const run = await execute(api, key.key, created.body.id, { input: 'use big for the report', wait: true });
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
    const t = (await trace(key, run.body.id)).body;
    const [first, second] = byName(t, 'model_call');
    assert.match(String(first!.attributes['gen_ai.input.messages']), /use big for the report/);
    assert.equal(first!.attributes['gen_ai.system_instructions'], 'Answer briefly.');
    assert.match(String(first!.attributes['gen_ai.output.messages']), /"toolCalls"/);
    assert.match(String(second!.attributes['gen_ai.output.messages']), /Fake reply to/);
    const [big] = byName(t, 'tool_call');
    assert.match(String(big!.attributes['gen_ai.input.messages']), /^\{/);
    const result = String(big!.attributes['gen_ai.output.messages']);
    assert.ok(Buffer.byteLength(result) <= 32 * 1024, `capped: ${Buffer.byteLength(result)} bytes`);
    assert.match(result, /…\[cut: \d+ more bytes\]$/);
    assert.ok(!JSON.stringify(t).includes(created.body.toolSecret), 'never the tool secret');

    const plain = await createAgent(api, key.key, { model: PRICED, tools: [tool('lookup')] });
    const quiet = await execute(api, key.key, plain, { input: 'use lookup for the secret plan', wait: true });
    const kept = JSON.stringify((await trace(key, quiet.body.id)).body);
    assert.ok(!kept.includes('secret plan'), 'without traceContent no content is kept');
    assert.ok(!kept.includes('gen_ai.input.messages'));
  });

  it('a traceparent joins the caller’s trace: the root under its span, tool requests and webhook deliveries name our spans', async () => {
    const key = await tenant();
    const caller = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const header = { traceparent: `00-${caller.traceId}-${caller.spanId}-01` };
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [tool('lookup')] });
    const before = tools.requests.length;
    const run = await execute(api, key.key, agent, { input: 'use lookup for the traced call', wait: true }, header);
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
    assert.equal(run.body.traceId, caller.traceId, 'the caller’s trace');
    const t = (await trace(key, run.body.id)).body;
    assert.equal(t.traceId, caller.traceId);
    const [root] = byName(t, 'execution');
    assert.equal(root!.parentId, caller.spanId, 'the root is the caller’s span’s child');
    const [call] = byName(t, 'tool_call');
    const sent = tools.requests.slice(before).find((r) => r.path === '/echo');
    assert.equal(sent?.headers.traceparent, `00-${caller.traceId}-${call!.id}-01`, 'the tool request names its span');
    assert.equal(call!.httpStatus, 200);
    assert.equal(call!.attributes['http.response.status_code'], 200);

    // A header that is not one starts a trace of the run's own (the request is not refused).
    for (const bad of ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, 'ff-' + header.traceparent.slice(3), `${header.traceparent}-extra`]) {
      const own = await execute(api, key.key, agent, { input: 'hi' }, { traceparent: bad });
      expectStatus(own, 202);
      assert.notEqual(own.body.traceId, caller.traceId, bad);
      assert.match(own.body.traceId, /^[0-9a-f]{32}$/);
    }

    // A schedule's run-now joins it too.
    const made = await api.request<{ id: string }>('POST', '/v1/schedules', { key: key.key, body: { agentId: agent, cron: '0 9 * * *', timezone: 'UTC', input: 'scheduled hi' } });
    expectStatus(made, 201);
    const now = await api.request<{ traceId: string }>('POST', `/v1/schedules/${made.body.id}/run`, { key: key.key, headers: header });
    expectStatus(now, 202);
    assert.equal(now.body.traceId, caller.traceId);

    // A webhook delivery of an execution's event names the run's root span.
    const test = await api.seed.key({ workspace: key.workspace, environment: 'test' });
    const hook = await api.request('POST', '/v1/webhooks', { key: test.key, body: { url: `${tools.url}/echo`, events: ['execution.succeeded'] } });
    expectStatus(hook, 201);
    const sandbox = await createAgent(api, test.key);
    const done = await execute(api, test.key, sandbox, { input: 'hello hook', wait: true }, header);
    assert.equal(done.body.status, 'succeeded');
    const doneRoot = byName((await trace(test, done.body.id)).body, 'execution')[0]!;
    const delivered = await eventually(
      'the delivery',
      async () => tools.requests.find((r) => r.path === '/echo' && String(r.headers['webhook-id'] ?? '').startsWith('evt_') && JSON.stringify(r.body).includes(done.body.id)),
      Boolean,
    );
    assert.equal(delivered!.headers.traceparent, `00-${caller.traceId}-${doneRoot.id}-01`);
  });

  it('an MCP tool’s span names its server and the tool as listed; the server’s requests name the run’s root span', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [{ type: 'mcp', name: 'docs', url: mcp.url }] });
    const before = mcp.requests.length;
    const run = await execute(api, key.key, agent, { input: 'use docs_search for refunds', wait: true });
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
    const t = (await trace(key, run.body.id)).body;
    const [call] = byName(t, 'tool_call');
    assert.equal(call?.tool, 'docs_search');
    assert.equal(call?.server, 'docs');
    assert.equal(call?.attributes['aas.mcp.server'], 'docs');
    assert.equal(call?.attributes['aas.mcp.tool'], 'search');
    const [root] = byName(t, 'execution');
    const sent = mcp.requests.slice(before);
    assert.ok(sent.length > 0);
    for (const r of sent) assert.equal(r.headers.traceparent, `00-${t.traceId}-${root!.id}-01`);
  });

  it('a queued run cancelled before it started has a root and no queue span', async () => {
    const key = await api.seed.key({ ...UNLIMITED, environment: 'live', customConcurrency: 1 });
    const agent = await createAgent(api, key.key, { model: PRICED });
    const first = await execute(api, key.key, agent, { input: 'a slow answer please' });
    const second = await execute(api, key.key, agent, { input: 'hello' });
    expectStatus(await api.request('POST', `/v1/executions/${second.body.id}/cancel`, { key: key.key }), 200);
    await api.request('POST', `/v1/executions/${first.body.id}/cancel`, { key: key.key });
    const t = (await trace(key, second.body.id)).body;
    assert.deepEqual(
      t.spans.map((s) => s.name),
      ['execution'],
    );
  });

  it('refuses what the key may not see: no key, another workspace, another environment, a key without agents:read', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED });
    const run = await execute(api, key.key, agent, { input: 'hi', wait: true });
    const path = `/v1/executions/${run.body.id}/trace`;
    expectError(await api.request('GET', path), 401, 'missing_api_key');
    const other = await api.seed.key(UNLIMITED);
    expectError(await api.request('GET', path, { key: other.key }), 404, 'resource_not_found');
    const test = await api.seed.key({ workspace: key.workspace, environment: 'test' });
    expectError(await api.request('GET', path, { key: test.key }), 404, 'resource_not_found');
    const narrow = await api.seed.key({ workspace: key.workspace, environment: 'live', scopes: ['agents:execute'] });
    expectError(await api.request('GET', path, { key: narrow.key }), 403, 'insufficient_scope');
    expectError(await api.request('GET', '/v1/executions/exe_nope/trace', { key: key.key }), 404, 'resource_not_found');
  });
});
