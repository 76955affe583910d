// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectStatus } from '../expect';
import type { FakeOpenAI } from '../fakes/openai';
import type { ToolServer } from '../fakes/tool-server';
import type { SeededKey, TestServer } from '../harness';
import { execute, readStream, startWithModelAndTools, type Execution } from './helpers';

// What a model can make the runner do with an agent's tools is bounded (docs/executions.md,
// "Tool calls: what a model can make us do"; docs/security.md). Each refusal goes back to the
// model as the tool's error result, the tool not called, and the run goes on:
// - arguments that do not match the tool's `parameters` (patterns on RE2: no ReDoS);
// - a GET's arguments naming a query parameter the tool's URL fixes;
// - more than 10 calls in one step (a model asked for 200 at once: 20.5 MB, +500 MB RSS);
// - tool results past 1 MiB in one execution.
// The sandbox model (test keys) calls one tool a step; the fake OpenAI (live key) fans out.

let api: TestServer;
let tools: ToolServer;
let fake: FakeOpenAI;
let owner: SeededKey;
let live: SeededKey;
let close: (() => Promise<void>) | undefined;

before(async () => ({ api, tools, fake, owner, live, close } = await startWithModelAndTools()));
after(async () => close?.());

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

describe('fan-out and result size', () => {
  const MODEL = 'openai-compatible/fake-1';

  it('25 parallel calls in one step: the first 10 are made, the other 15 are refused; the run goes on', async () => {
    fake.set({ parallelCalls: 25 });
    try {
      const since = tools.requests.length;
      const exe = await run(live, { model: MODEL, tools: [tool('lookup', '/echo', stringParam('q'))] }, 'lookup everything');
      assert.equal(calls('/echo', since).length, 10, 'ten calls reached the tool');
      const [first] = exe.steps;
      assert.equal(first!.toolCalls.length, 25);
      assert.equal(first!.toolResults.filter((r) => !r.isError).length, 10);
      const refused = first!.toolResults.filter((r) => r.isError);
      assert.equal(refused.length, 15);
      for (const r of refused) assert.match(JSON.stringify(r.result), /at most 10 tool calls are made in one step/);
      assert.equal(exe.steps.length, 2, 'the model answered after the results');
    } finally {
      fake.set({ parallelCalls: 1 });
    }
  });

  it('past 1 MiB of tool results in one execution, results become errors and then calls are not made', async () => {
    fake.set({ parallelCalls: 10 });
    try {
      const since = tools.requests.length;
      const big = (name: string) => tool(name, '/big', stringParam('q'));
      const exe = await run(live, { model: MODEL, tools: [big('big1'), big('big2'), big('big3')] }, 'big1 then big2 then big3');
      const [one, two, three] = exe.steps;
      // Step 1: ten truncated 100 KB answers, about 1,000 KB: within the budget.
      assert.equal(one!.toolResults.filter((r) => !r.isError).length, 10);
      // Step 2: the calls were made, but their answers would pass the budget.
      assert.equal(two!.toolResults.filter((r) => r.isError).length, 10);
      for (const r of two!.toolResults) assert.match(JSON.stringify(r.result), /would pass this execution's budget of tool results \(1 MiB/);
      // Step 3: spent, nothing is called.
      for (const r of three!.toolResults) assert.match(JSON.stringify(r.result), /^\{"error":"Not called: this execution's budget of tool results \(1 MiB handed to the model\) is spent"\}$/);
      assert.equal(calls('/big', since).length, 20);
      const handed = exe.steps.flatMap((s) => s.toolResults).reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r.result)), 0);
      assert.ok(handed < 1.1 * 1024 * 1024, `${handed} bytes handed to the model`);
    } finally {
      fake.set({ parallelCalls: 1 });
    }
  });
});
