// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { expectStatus } from '../expect';
import type { ToolServer } from '../fakes/tool-server';
import type { SeededKey, TestServer } from '../harness';
import { execute, readStream, startWithTools, waitFor, type Conversation, type Execution } from './helpers';
import { until } from '../eventually';

// HTTP tools in a run (docs/api.md, "Agents"): the sandbox model calls a tool the input names, the
// runner calls its URL with the arguments as JSON, signed like a webhook with the agent's secret,
// and feeds the answer (or the failure) back to the model.

let api: TestServer;
let tools: ToolServer;
let owner: SeededKey;
let close: (() => Promise<void>) | undefined;

before(async () => ({ api, tools, owner, close } = await startWithTools()));
after(async () => close?.());

const lookup = (path = '/echo') => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url: `${tools.url}${path}`,
  method: 'POST',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
});

async function agentWith(body: Record<string, unknown>): Promise<{ id: string; toolSecret: string }> {
  const res = await api.request<{ id: string; toolSecret: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'Tool user', ...body } });
  expectStatus(res, 201);
  return res.body;
}

describe('HTTP tools', () => {
  it('the model calls the tool; the call is signed with the agent secret; the result goes back to the model', async () => {
    const agent = await agentWith({ tools: [lookup()] });
    const before = tools.requests.length;
    const res = await execute(api, owner.key, agent.id, { input: 'please lookup order 1042', wait: true });
    expectStatus(res, 200);
    const exe = res.body;
    assert.equal(exe.status, 'succeeded', JSON.stringify(exe.error));
    const call = tools.requests.slice(before).find((r) => r.path === '/echo')!;
    assert.ok(call, 'the tool server was called');
    const args = JSON.parse(call.body) as { query: string };
    assert.equal(typeof args.query, 'string');
    // Signed over `<METHOD> <URL>\n<body>` (docs/executions.md, "Tool signing"; tool-signing.int.test.ts).
    const content = `POST ${tools.url}${call.url}\n${call.body}`;
    new Webhook(agent.toolSecret).verify(content, call.headers as Record<string, string>, { jsonParse: false });
    assert.throws(() => new Webhook(agent.toolSecret).verify(content.replace('}', ',"x":1}'), call.headers as Record<string, string>, { jsonParse: false }));
    assert.equal(exe.steps.length, 2);
    assert.equal(exe.steps[0]!.toolCalls[0]!.name, 'lookup');
    assert.deepEqual(exe.steps[0]!.toolResults[0]!.result, { status: 200, body: { received: args } });
    assert.match(exe.output!, /lookup/);
    const conv = await api.request<Conversation>('GET', `/v1/conversations/${exe.conversationId}`, { key: owner.key });
    assert.deepEqual(conv.body.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.equal(conv.body.messages[1]!.toolCalls?.[0]?.name, 'lookup');
    assert.equal(conv.body.messages[2]!.toolCallId, conv.body.messages[1]!.toolCalls?.[0]?.id);
    // The list counts tool messages too.
    const listed = await api.request<{ data: { id: string; messageCount: number; lastMessageAt: string }[] }>('GET', `/v1/conversations?agentId=${agent.id}`, { key: owner.key });
    assert.deepEqual(listed.body.data.map((c) => [c.id, c.messageCount, c.lastMessageAt]), [[exe.conversationId, 4, conv.body.messages[3]!.createdAt]]);
    const stream = await readStream(`${api.url}/v1/executions/${exe.id}/stream`, { key: owner.key });
    const types = stream.events.map((e) => e.event);
    assert.ok(types.indexOf('tool.call') > 0 && types.indexOf('tool.result') > types.indexOf('tool.call'), types.join(','));
  });

  it('a failing tool is fed back to the model as an error result, not a crash', async () => {
    const agent = await agentWith({ tools: [lookup('/fail')] });
    const res = await execute(api, owner.key, agent.id, { input: 'lookup order 7', wait: true });
    assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
    const result = res.body.steps[0]!.toolResults[0]!;
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.result), /500/);
  });

  it('cancelling a run aborts the tool call in flight', async () => {
    const agent = await agentWith({ tools: [lookup('/slow')] });
    const abortedBefore = tools.aborted;
    const res = await execute(api, owner.key, agent.id, { input: 'lookup something slow' });
    await waitFor(api, owner.key, res.body.id, (e) => e.status === 'running');
    await until('the tool server got the call', () => tools.requests.some((r) => r.path === '/slow'), { timeoutMs: 5_000 });
    expectStatus(await api.request('POST', `/v1/executions/${res.body.id}/cancel`, { key: owner.key }), 200);
    const cancelledAt = Date.now();
    await until('the tool server saw the call aborted', () => tools.aborted > abortedBefore, { timeoutMs: 2_000 });
    assert.ok(Date.now() - cancelledAt < 1_000);
    assert.equal((await waitFor(api, owner.key, res.body.id)).status, 'cancelled');
  });

  it('timeoutSeconds ends a run that takes too long: failed / timeout', async () => {
    const agent = await agentWith({ tools: [lookup('/slow')], timeoutSeconds: 1 });
    const res = await execute(api, owner.key, agent.id, { input: 'lookup forever', wait: true });
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.error?.code, 'timeout');
  });

  it('a model still calling tools after maxSteps: failed / max_steps_exceeded', async () => {
    const agent = await agentWith({ tools: [lookup()], maxSteps: 1 });
    const res = await execute(api, owner.key, agent.id, { input: 'lookup order 9', wait: true });
    const exe: Execution = res.body;
    assert.equal(exe.status, 'failed');
    assert.equal(exe.error?.code, 'max_steps_exceeded');
    assert.equal(exe.steps.length, 1);
  });
});
