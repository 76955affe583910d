import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TraceView } from '../../server/modules/traces/schemas';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, readStream, waitFor, type Conversation, type Execution } from '../executions/helpers';

// Replay (docs/traces.md, "Replay"): a new execution of a final one's agent that takes the steps
// before `fromStep` as recorded (no model call, no tool call, no cost) and runs the rest live with
// the overrides; with recorded tools no tool is ever called (a call the original never made is
// answered `not_recorded`). The original — its row, its conversation — is never written.

const PRICED = 'openai-compatible/fake-1';

let api: TestServer;
let fake: FakeOpenAI;
let tools: ToolServer;

before(async () => {
  fake = await startFakeOpenAI();
  tools = await startToolServer();
  api = await startServer({
    env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', MODEL_PRICES: JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } }) },
  });
});
after(async () => {
  await api?.close();
  await fake?.close();
  await tools?.close();
});

const lookup = () => ({ type: 'http', name: 'lookup', description: 'The lookup tool', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } });
const tenant = (opts: Parameters<TestServer['seed']['key']>[0] = {}): Promise<SeededKey> => api.seed.key({ ...UNLIMITED, environment: 'live', ...opts });
const replay = (key: SeededKey, id: string, body: Record<string, unknown>) => api.request<Execution>('POST', `/v1/executions/${id}/replay`, { key: key.key, body });
const toolRequests = () => tools.requests.filter((r) => r.path === '/echo').length;

/** A finished tool-using run (2 steps: the call, then the answer) of a new agent. */
async function original(key: SeededKey, body: Record<string, unknown> = {}) {
  const agent = await createAgent(api, key.key, { model: PRICED, tools: [lookup()], instructions: 'Be brief.', ...body });
  const run = await execute(api, key.key, agent, { input: 'use lookup for the weather', wait: true });
  expectStatus(run, 200);
  assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
  assert.equal(run.body.steps.length, 2);
  return { agent, run: run.body };
}

describe('POST /v1/executions/:id/replay', () => {
  it('from step 0 with recorded tools: the model runs again, the tool is never called, its recorded result answers', async () => {
    const key = await tenant();
    const { agent, run } = await original(key);
    const [calls, models] = [toolRequests(), fake.requests.length];
    const res = await replay(key, run.id, { fromStep: 0, wait: true });
    expectStatus(res, 200);
    const r = res.body;
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.notEqual(r.id, run.id);
    assert.equal(r.agentId, agent);
    assert.deepEqual(r.replayOf, { executionId: run.id, fromStep: 0, tools: 'recorded' });
    assert.equal(r.input, run.input);
    assert.notEqual(r.conversationId, run.conversationId, 'a conversation of its own');
    assert.equal(toolRequests(), calls, 'no tool was called');
    assert.equal(fake.requests.length, models + 2, 'both steps ran live');
    assert.deepEqual(r.steps[0]!.toolResults.map((t) => t.result), run.steps[0]!.toolResults.map((t) => t.result), 'the recorded result');
    assert.equal(r.output, run.output);
    assert.ok(r.usage.totalTokens > 0);

    // The original is as it was, and a replay is an execution like any other.
    const again = await api.request<Execution>('GET', `/v1/executions/${run.id}`, { key: key.key });
    assert.deepEqual(again.body, run);
    const conv = await api.request<Conversation>('GET', `/v1/conversations/${run.conversationId}`, { key: key.key });
    assert.equal(conv.body.messages.filter((m) => m.executionId !== run.id).length, 0, 'nothing added to the original’s conversation');
    const listed = await api.request<{ data: Execution[] }>('GET', `/v1/executions?agentId=${agent}`, { key: key.key });
    assert.deepEqual(listed.body.data.map((e) => e.id), [r.id, run.id]);
  });

  it('from step 1: step 0 is taken as recorded (no model call, no cost), only step 1 is called and charged', async () => {
    const key = await tenant();
    const { run } = await original(key);
    const [calls, models] = [toolRequests(), fake.requests.length];
    const res = await replay(key, run.id, { fromStep: 1, wait: true });
    expectStatus(res, 200);
    const r = res.body;
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(fake.requests.length, models + 1, 'one model call: step 1');
    assert.equal(toolRequests(), calls);
    assert.equal(r.steps.length, 2);
    const { usage: _u, ...recorded } = run.steps[0]!;
    const { usage, ...taken } = r.steps[0]!;
    assert.deepEqual(taken, recorded, 'step 0 as the original recorded it');
    assert.deepEqual(usage, { inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    assert.deepEqual(r.usage, r.steps[1]!.usage, 'the usage is the live step’s');
    // The model was sent the recorded step back: the call and its result, then answered.
    const sent = fake.requests.at(-1)!.body.messages ?? [];
    assert.ok(sent.some((m) => m.role === 'tool'), 'the recorded tool result went to the model');
    assert.equal(r.output, run.output);

    const t = await api.request<TraceView>('GET', `/v1/executions/${r.id}/trace`, { key: key.key });
    expectStatus(t, 200);
    const modelCalls = t.body.spans.filter((s) => s.name === 'model_call');
    assert.equal(modelCalls.length, 1, 'one model call span: the live step');
    assert.equal(modelCalls[0]!.attributes['aas.step'], 1);
    const [root] = t.body.spans.filter((s) => s.name === 'execution');
    assert.deepEqual(root!.usage, { inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens });
  });

  it('a call the original never made answers not_recorded, and no tool is called; tools "live" calls it', async () => {
    const key = await tenant();
    const { run } = await original(key);
    const calls = toolRequests();
    const other = await replay(key, run.id, { fromStep: 0, input: 'use lookup for the tides', wait: true });
    expectStatus(other, 200);
    assert.deepEqual(other.body.steps[0]!.toolResults[0]!.result, { error: 'not_recorded' });
    assert.equal(toolRequests(), calls, 'still no tool called');
    assert.equal(other.body.input, 'use lookup for the tides');

    const live = await replay(key, run.id, { fromStep: 0, tools: 'live', wait: true });
    expectStatus(live, 200);
    assert.equal(live.body.status, 'succeeded');
    assert.deepEqual(live.body.replayOf, { executionId: run.id, fromStep: 0, tools: 'live' });
    assert.equal(toolRequests(), calls + 1, 'the tool was called for real');
  });

  it('overrides: instructions and model; the conversation before the original’s turn is sent as it was', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, instructions: 'Be brief.' });
    const first = await execute(api, key.key, agent, { input: 'first turn', wait: true });
    const second = await execute(api, key.key, agent, { input: 'second turn', conversationId: first.body.conversationId, wait: true });
    assert.equal(second.body.status, 'succeeded');
    const res = await replay(key, second.body.id, { fromStep: 0, instructions: 'Be thorough.', wait: true });
    expectStatus(res, 200);
    const sent = fake.requests.at(-1)!.body.messages ?? [];
    assert.equal(sent[0]!.role, 'system');
    assert.equal(sent[0]!.content, 'Be thorough.');
    const texts = sent.map((m) => (typeof m.content === 'string' ? m.content : ''));
    assert.ok(texts.includes('first turn') && texts.includes('second turn'), 'the earlier turn, then the replayed one');
    const conv = await api.request<Conversation>('GET', `/v1/conversations/${res.body.conversationId}`, { key: key.key });
    assert.deepEqual(conv.body.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    const origConv = await api.request<Conversation>('GET', `/v1/conversations/${first.body.conversationId}`, { key: key.key });
    assert.equal(origConv.body.messages.length, 4, 'the original conversation is untouched');

    const sandboxed = await replay(key, second.body.id, { fromStep: 0, model: 'sandbox/echo', wait: true });
    expectStatus(sandboxed, 200);
    assert.equal(sandboxed.body.model, 'sandbox/echo');
    assert.equal(sandboxed.body.status, 'succeeded', JSON.stringify(sandboxed.body.error));
  });

  it('stream: true answers with the replay’s events; 202 without wait or stream', async () => {
    const key = await tenant();
    const { run } = await original(key);
    const s = await readStream(`${api.url}/v1/executions/${run.id}/replay`, { method: 'POST', key: key.key, body: { fromStep: 1, stream: true } });
    assert.equal(s.status, 200);
    assert.equal(s.events.at(-1)!.event, 'execution.succeeded');
    const queued = await replay(key, run.id, { fromStep: 1 });
    expectStatus(queued, 202);
    const done = await waitFor(api, key.key, queued.body.id);
    assert.equal(done.status, 'succeeded');
  });

  it('refuses what it cannot replay, and writes nothing', async () => {
    const key = await tenant();
    const { agent, run } = await original(key);
    const count = async () => (await api.request<{ data: Execution[] }>('GET', `/v1/executions?agentId=${agent}`, { key: key.key })).body.data.length;
    const before = await count();
    expectError(await replay(key, run.id, { fromStep: 2 }), 400, 'invalid_parameter', 'fromStep');
    expectError(await replay(key, run.id, { fromStep: -1 }), 400, 'invalid_parameter', 'fromStep');
    expectError(await replay(key, run.id, { fromStep: 0, model: 'nobody/x' }), 400, 'invalid_parameter', 'model');
    expectError(await replay(key, run.id, { fromStep: 0, tools: 'some' }), 400, 'invalid_parameter', 'tools');
    expectError(await replay(key, run.id, { fromStep: 0, wait: true, stream: true }), 400, 'parameter_conflict', 'stream');
    expectError(await replay(key, run.id, { fromStep: 0, conversationId: run.conversationId }), 400, 'unknown_parameter', 'conversationId');
    expectError(await replay(key, run.id, {}), 400, 'missing_required_field', 'fromStep');
    expectError(await replay(key, 'exe_nope', { fromStep: 0 }), 404, 'resource_not_found');

    // Not final: 409.
    const slow = await execute(api, key.key, agent, { input: 'slow answer please' });
    await waitFor(api, key.key, slow.body.id, (e) => e.status === 'running');
    expectError(await replay(key, slow.body.id, { fromStep: 0 }), 409, 'execution_not_final');
    await api.request('POST', `/v1/executions/${slow.body.id}/cancel`, { key: key.key });
    assert.equal(await count(), before + 1, 'only the slow run was created');
  });

  it('security: no key, a key without agents:execute, another workspace, the other environment', async () => {
    const key = await tenant();
    const { run } = await original(key);
    const none = await api.request('POST', `/v1/executions/${run.id}/replay`, { body: { fromStep: 0 } });
    expectError(none, 401, 'missing_api_key');
    const reader = await api.seed.key({ workspace: key.workspace, environment: 'live', scopes: ['agents:read'] });
    expectError(await replay(reader, run.id, { fromStep: 0 }), 403, 'insufficient_scope');
    const stranger = await tenant();
    expectError(await replay(stranger, run.id, { fromStep: 0 }), 404, 'resource_not_found');
    const test = await api.seed.key({ ...UNLIMITED, workspace: key.workspace, environment: 'test' });
    expectError(await replay(test, run.id, { fromStep: 0 }), 404, 'resource_not_found');
  });
});
