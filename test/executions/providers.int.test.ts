// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectStatus } from '../expect';
import type { FakeOpenAI } from '../fakes/openai';
import type { ToolServer } from '../fakes/tool-server';
import { UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, readStream, startWithModelAndTools, waitFor } from './helpers';

// Real provider code (the AI SDK's openai-compatible provider) against a fake OpenAI-compatible
// server the test starts: text, streaming, tool calls, cancellation reaching the provider,
// provider failures, an unconfigured provider, and the test-mode answer cache.

let api: TestServer;
let fake: FakeOpenAI;
let tools: ToolServer;
let owner: SeededKey;
let live: SeededKey;
let close: (() => Promise<void>) | undefined;

before(async () => ({ api, tools, fake, owner, live, close } = await startWithModelAndTools({ TEST_MODE_REAL_MODELS: 'true' })));
after(async () => close?.());

const MODEL = 'openai-compatible/fake-1';
const sent = (marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length;

describe('openai-compatible provider', () => {
  it('answers through the provider, with its usage, in live mode too', async () => {
    for (const key of [owner, live]) {
      const agentId = await createAgent(api, key.key, { model: MODEL, instructions: 'You are terse.' });
      const res = await execute(api, key.key, agentId, { input: `hi from ${key.environment}`, wait: true });
      expectStatus(res, 200);
      assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
      assert.equal(res.body.output, `Fake reply to: hi from ${key.environment}`);
      assert.equal(res.body.model, MODEL);
      assert.ok(res.body.usage.inputTokens > 0);
      const request = fake.requests.at(-1)!.body as { model: string; messages: { role: string; content: string }[] };
      assert.equal(request.model, 'fake-1');
      assert.equal(request.messages[0]!.role, 'system');
    }
  });

  it('streams the reply as it arrives', async () => {
    fake.set({ chunkDelayMs: 40 });
    try {
      const agentId = await createAgent(api, owner.key, { model: MODEL });
      const res = await readStream(`${api.url}/v1/agents/${agentId}/execute`, { method: 'POST', key: owner.key, body: { input: 'tell me a longer story now', stream: true } });
      const deltas = res.events.filter((e) => e.event === 'text.delta');
      assert.ok(deltas.length >= 2, `deltas: ${deltas.length}`);
      assert.equal(deltas.map((e) => e.data.delta).join(''), 'Fake reply to: tell me a longer story now');
    } finally {
      fake.set({ chunkDelayMs: 0 });
    }
  });

  it('multi-step tool calls through the provider', async () => {
    const agentId = await createAgent(api, owner.key, {
      model: MODEL,
      tools: [{ type: 'http', name: 'weather', description: 'Weather for a city', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    });
    const res = await execute(api, owner.key, agentId, { input: 'what is the weather in Paris', wait: true });
    assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
    assert.equal(res.body.steps.length, 2);
    assert.equal(res.body.steps[0]!.toolCalls[0]!.name, 'weather');
    const followUp = fake.requests.at(-1)!.body as { messages: { role: string }[] };
    assert.ok(followUp.messages.some((m) => m.role === 'tool'), 'the tool result went back to the model');
  });

  it('cancel aborts the request to the provider within a second', async () => {
    const agentId = await createAgent(api, owner.key, { model: MODEL });
    const res = await execute(api, owner.key, agentId, { input: 'slow please abort-me' });
    await fake.waitFor(() => sent('abort-me') === 1, 10_000);
    const abortedBefore = fake.aborted;
    expectStatus(await api.request('POST', `/v1/executions/${res.body.id}/cancel`, { key: owner.key }), 200);
    await fake.waitFor(() => fake.aborted > abortedBefore, 1_000);
    assert.equal((await waitFor(api, owner.key, res.body.id)).status, 'cancelled');
  });

  it('provider failures: 500 → model_error, 401 → model_provider_unavailable', async () => {
    const agentId = await createAgent(api, owner.key, { model: MODEL });
    for (const [status, code] of [[500, 'model_error'], [401, 'model_provider_unavailable']] as const) {
      fake.set({ status });
      try {
        const res = await execute(api, owner.key, agentId, { input: `fail with ${status}`, wait: true });
        assert.equal(res.body.status, 'failed');
        assert.equal(res.body.error?.code, code, JSON.stringify(res.body.error));
        assert.ok(!JSON.stringify(res.body.error).includes('Bearer'), 'no secrets in the error');
      } finally {
        fake.set({ status: undefined });
      }
    }
  });

  it('an unconfigured provider fails the execution with model_provider_unavailable', async () => {
    const agentId = await createAgent(api, owner.key, { model: 'openai/gpt-4o-mini' });
    const res = await execute(api, owner.key, agentId, { input: 'x', wait: true });
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.error?.code, 'model_provider_unavailable');
    assert.match(res.body.error!.message, /OPENAI_API_KEY/);
  });

  it('test mode serves an identical request from the cache (cached: true), live mode never', async () => {
    for (const [key, cached] of [[owner, true], [live, false]] as const) {
      const agentId = await createAgent(api, key.key, { model: MODEL });
      const input = `cache me ${key.environment}`;
      const first = await execute(api, key.key, agentId, { input, wait: true });
      const n = sent(input);
      const second = await execute(api, key.key, agentId, { input, wait: true });
      assert.equal(first.body.cached, false);
      assert.equal(second.body.cached, cached);
      assert.equal(second.body.output, first.body.output);
      assert.equal(sent(input), cached ? n : n + 1);
    }
  });

  it("test mode never serves another workspace's cached answer: the same agent and input in workspace B calls the model", async () => {
    const other = await api.seed.key({ ...UNLIMITED });
    const input = `secret prompt of A ${Date.now()}`;
    const instructions = 'A private system prompt.';
    const a = await createAgent(api, owner.key, { model: MODEL, instructions });
    const answered = await execute(api, owner.key, a, { input, wait: true });
    assert.equal(answered.body.status, 'succeeded', JSON.stringify(answered.body.error));
    assert.equal(sent(input), 1);
    const b = await createAgent(api, other.key, { model: MODEL, instructions });
    const guessed = await execute(api, other.key, b, { input, wait: true });
    assert.equal(guessed.body.status, 'succeeded', JSON.stringify(guessed.body.error));
    assert.equal(guessed.body.cached, false, "B must not get A's cached answer");
    assert.equal(sent(input), 2, 'B’s request went to the model');
    // And A's own repeat still comes from the cache.
    assert.equal((await execute(api, owner.key, a, { input, wait: true })).body.cached, true);
  });
});
