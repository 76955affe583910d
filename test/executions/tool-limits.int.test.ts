import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectStatus } from '../expect';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { execute, readStream, type Execution } from './helpers';

// What a model can make the runner do with an agent's tools is bounded (docs/executions.md,
// "Tool calls: what a model can make us do"; docs/security.md). Each refusal goes back to the
// model as the tool's error result, the tool not called, and the run goes on:
// - arguments that do not match the tool's `parameters` (patterns on RE2: no ReDoS);
// - a GET's arguments naming a query parameter the tool's URL fixes;
// The sandbox model (test keys) calls one tool a step.

let api: TestServer;
let tools: ToolServer;
let owner: SeededKey;

before(async () => {
  tools = await startToolServer();
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  await api?.close();
  await tools?.close();
});

const tool = (name: string, path: string, parameters: Record<string, unknown>, method = 'POST') => ({
  type: 'http',
  name,
  description: `The ${name} tool`,
  url: `${tools.url}${path}`,
  method,
  parameters,
});
const stringParam = (name: string, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: { [name]: { type: 'string', ...extra } }, required: [name] });

async function run(key: SeededKey, body: Record<string, unknown>, input: string): Promise<Execution> {
  const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: key.key, body: { name: 'Limited', maxSteps: 6, ...body } });
  expectStatus(agent, 201);
  const res = await execute(api, key.key, agent.body.id, { input, wait: true });
  expectStatus(res, 200);
  assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
  return res.body;
}

const calls = (path: string, since: number) => tools.requests.slice(since).filter((r) => r.path === path);

describe('arguments are checked against the tool’s parameters before the call', () => {
  it('arguments that do not match: the tool is not called, the model gets the reason as the tool’s error', async () => {
    const since = tools.requests.length;
    const exe = await run(owner, { tools: [tool('lookup', '/echo', stringParam('orderId', { pattern: '^[0-9]+$' }))] }, 'lookup order abc');
    assert.equal(calls('/echo', since).length, 0, 'the tool was not called');
    const result = exe.steps[0]!.toolResults[0]!;
    assert.equal(result.isError, true);
    assert.deepEqual(result.result, { error: `Not called: the arguments do not match the tool's parameters: /orderId must match pattern "^[0-9]+$"` });
    const stream = await readStream(`${api.url}/v1/executions/${exe.id}/stream`, { key: owner.key });
    const event = stream.events.find((e) => e.event === 'tool.result')!;
    assert.equal(event.data.isError, true);
    // Matching arguments are sent as before.
    await run(owner, { tools: [tool('lookup', '/echo', stringParam('orderId', { pattern: '^order' }))] }, 'lookup order 42');
    assert.equal(calls('/echo', since).length, 1);
  });

  it('a catastrophic pattern meets an evil argument: answered at once (RE2), not called', async () => {
    const since = tools.requests.length;
    const started = Date.now();
    const exe = await run(owner, { tools: [tool('lookup', '/echo', stringParam('s', { pattern: '^(a+)+$' }))] }, `lookup ${'a'.repeat(60)}b`);
    assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    assert.equal(calls('/echo', since).length, 0);
    assert.match(JSON.stringify(exe.steps[0]!.toolResults[0]!.result), /must match pattern/);
  });
});

describe('query parameters fixed in a GET tool’s URL', () => {
  it('arguments naming one are refused, never sent (no mode=b, no second mode); others are added', async () => {
    const since = tools.requests.length;
    const exe = await run(owner, { tools: [tool('search', '/query?mode=a', stringParam('mode'), 'GET')] }, 'search mode b');
    assert.equal(calls('/query', since).length, 0, 'the tool was not called');
    assert.deepEqual(exe.steps[0]!.toolResults[0]!.result, { error: "Not called: the argument 'mode' names a query parameter that the tool's URL fixes" });
    assert.equal(exe.steps[0]!.toolResults[0]!.isError, true);

    const ok = await run(owner, { tools: [tool('search', '/query?mode=a', stringParam('q'), 'GET')] }, 'search shoes');
    const [sent] = calls('/query', since);
    assert.deepEqual(ok.steps[0]!.toolResults[0]!.result, { status: 200, body: [['mode', 'a'], ['q', 'shoes']] });
    assert.match(sent!.url, /^\/query\?mode=a&q=shoes$/);
  });
});
