// test: alone — sets the environment the providers read once: a process of its own (docs/testing.md)
import assert from 'node:assert/strict';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, RetryError, stepCountIs, streamText, tool } from 'ai';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai';

// The real OpenAI-compatible provider against the fake chat completions server: text, streamed
// deltas, usage, multi-step tool calls, cancellation, and how failures are classified. Also
// the registry: which provider a model string resolves to in each environment.

let fake: FakeOpenAI;
let registry: typeof import('./registry');
const compatible = () => createOpenAICompatible({ name: 'openai-compatible', baseURL: fake.url, apiKey: 'sk-test-secret-key-123456', includeUsage: true });

const calls: unknown[] = [];
const tools = {
  lookup: tool({
    description: 'Looks a customer up',
    inputSchema: jsonSchema<{ query: string; limit: number }>({ type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] }),
    execute: async (input) => {
      calls.push(input);
      return { name: 'Ada', id: 7 };
    },
  }),
};

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  fake = await startFakeOpenAI();
  // server/platform/env.js reads the environment once, when first imported.
  process.env.OPENAI_COMPATIBLE_BASE_URL = fake.url;
  delete process.env.OPENAI_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.TEST_MODE_REAL_MODELS;
  registry = await import('./registry');
});
after(() => fake.close());
beforeEach(() => fake.reset());

describe('openai-compatible provider against the fake', () => {
  it('generates text with usage', async () => {
    const result = await generateText({ model: compatible()('fake-model'), prompt: 'hello there' });
    assert.equal(result.text, 'Fake reply to: hello there');
    assert.ok((result.usage.inputTokens ?? 0) > 0 && (result.usage.outputTokens ?? 0) > 0);
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]!.body.model, 'fake-model');
    assert.equal(fake.requests[0]!.headers.authorization, 'Bearer sk-test-secret-key-123456');
  });

  it('streams several deltas and reports usage', async () => {
    const result = streamText({ model: compatible()('fake-model'), prompt: 'hello' });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);
    assert.ok(deltas.length >= 3, JSON.stringify(deltas));
    assert.equal(deltas.join(''), 'Fake reply to: hello');
    assert.deepEqual(fake.requests[0]!.body.stream_options, { include_usage: true });
    const usage = await result.totalUsage;
    assert.ok((usage.inputTokens ?? 0) > 0 && (usage.outputTokens ?? 0) > 0, JSON.stringify(usage));
  });

  it('runs a tool call, then answers with its result', async () => {
    calls.length = 0;
    const result = streamText({ model: compatible()('fake-model'), prompt: 'please lookup Ada', tools, stopWhen: stepCountIs(5) });
    const types: string[] = [];
    for await (const part of result.fullStream) if (part.type.startsWith('tool-') && !part.type.startsWith('tool-input')) types.push(part.type);
    assert.deepEqual(types, ['tool-call', 'tool-result']);
    assert.deepEqual(calls, [{ query: 'Ada', limit: 1 }]);
    assert.equal(await result.text, 'Fake reply to: please lookup Ada (tool results: {"name":"Ada","id":7})');
    const steps = await result.steps;
    assert.equal(steps.length, 2);
    assert.equal(steps[0]!.toolCalls[0]!.toolCallId, 'call_1');
    const second = fake.requests[1]!.body.messages!;
    assert.deepEqual(second.map((m) => m.role), ['user', 'assistant', 'tool']);
    const usage = await result.totalUsage;
    assert.equal(usage.inputTokens, steps[0]!.usage.inputTokens! + steps[1]!.usage.inputTokens!);
  });

  it('disconnects from the server when aborted mid-stream', async () => {
    const controller = new AbortController();
    const result = streamText({ model: compatible()('fake-model'), prompt: 'be slow please', abortSignal: controller.signal });
    const started = Date.now();
    for await (const part of result.fullStream) if (part.type === 'text-delta') controller.abort();
    await fake.waitFor(() => fake.aborted === 1, 1000);
    assert.ok(Date.now() - started < 1500);
  });

  it('also works through @ai-sdk/openai chat models', async () => {
    const openai = createOpenAI({ baseURL: fake.url, apiKey: 'sk-test' });
    const result = await generateText({ model: openai.chat('gpt-fake'), prompt: 'hi', tools, stopWhen: stepCountIs(3) });
    assert.equal(result.text, 'Fake reply to: hi');
  });
});

describe('classifyModelError', () => {
  const failWith = async (status: number) => {
    fake.set({ status });
    const err = await generateText({ model: compatible()('fake-model'), prompt: 'x', maxRetries: 0 }).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    return registry.classifyModelError(err);
  };

  it('a 500 is a model_error with the status', async () => {
    const c = await failWith(500);
    assert.equal(c.code, 'model_error');
    assert.match(c.message, /HTTP 500/);
  });

  it('a 401 means the provider is unavailable; the key never shows', async () => {
    const c = await failWith(401);
    assert.equal(c.code, 'model_provider_unavailable');
    assert.match(c.message, /HTTP 401/);
    assert.doesNotMatch(c.message, /sk-test/);
  });

  it('a refused connection means the provider is unavailable', async () => {
    const model = createOpenAICompatible({ name: 'x', baseURL: `http://127.0.0.1:${await closedPort()}/v1` })('m');
    const err = await generateText({ model, prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    assert.deepEqual(registry.classifyModelError(err), { code: 'model_provider_unavailable', message: 'Could not connect to the model provider (ECONNREFUSED)' });
  });

  it('looks inside retries and hides credentials', () => {
    const last = new APICallError({ message: 'Incorrect API key provided: sk-proj-abcdef1234567890', url: 'https://api.example/v1', requestBodyValues: { secret: 'body' }, statusCode: 502 });
    const c = registry.classifyModelError(new RetryError({ message: 'Failed after 2 attempts', reason: 'maxRetriesExceeded', errors: [last, last] }));
    assert.equal(c.code, 'model_error');
    assert.equal(c.message, 'The model provider answered HTTP 502: Incorrect API key provided: [redacted]');
  });

  it('names a connection that broke mid-answer, and logs its causes without the error itself', async () => {
    // A real server that starts its answer and drops the connection: undici's `TypeError: terminated`.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[]}\n\n', () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { authorization: 'Bearer sk-very-secret-0123' } });
      const err = await res.text().then(() => undefined, (e: unknown) => e);
      assert.ok(err, 'the body read fails');
      const classified = registry.classifyModelError(err);
      assert.equal(classified.code, 'model_provider_unavailable');
      assert.match(classified.message, /^The connection to the model provider broke before its answer ended \((UND_ERR_SOCKET|ECONNRESET)\)$/);
      assert.match(registry.errorChain(err), /^TypeError: terminated ← \w+ \((UND_ERR_SOCKET|ECONNRESET)\): /);
    } finally {
      server.close();
    }
    const withPrompt = Object.assign(new Error('Bad Request'), { name: 'AI_APICallError', requestBodyValues: { messages: [{ content: 'the private prompt' }] }, cause: new Error('Bearer sk-abcdef123456 refused') });
    assert.equal(registry.errorChain(withPrompt), 'AI_APICallError: Bad Request ← Error: Bearer [redacted] refused');
  });

  it('keeps the details of unexpected errors to itself', () => {
    assert.deepEqual(registry.classifyModelError(new TypeError('x is undefined at /srv/app.js')), { code: 'model_error', message: 'The model call failed unexpectedly' });
    const e = new registry.ModelError('model_provider_unavailable', 'nope');
    assert.deepEqual(registry.classifyModelError(e), { code: 'model_provider_unavailable', message: 'nope' });
  });
});

describe('registry', () => {
  it('parses provider/model strings', () => {
    assert.deepEqual(registry.parseModel('openai-compatible/llama3.1:8b'), { provider: 'openai-compatible', modelId: 'llama3.1:8b' });
    assert.deepEqual(registry.parseModel('openai-compatible/org/model'), { provider: 'openai-compatible', modelId: 'org/model' });
    assert.deepEqual(registry.parseModel('sandbox/echo'), { provider: 'sandbox', modelId: 'echo' });
    for (const bad of ['echo', 'sandbox/', '/echo', 'sandbox/ echo', 'sandbox/a\nb', 'mistral/large', `openai/${'x'.repeat(200)}`, 'OpenAI/gpt-4o']) {
      assert.equal(registry.parseModel(bad), null, bad);
    }
  });

  it('lists the configured providers', () => {
    assert.deepEqual(registry.configuredProviders(), ['sandbox', 'openai-compatible']);
  });

  it('runs test executions on the sandbox and live ones on the provider', async () => {
    const test = registry.resolveModel('openai-compatible/llama3.1:8b', { environment: 'test' });
    assert.equal(test.used, 'sandbox/llama3.1:8b');
    assert.equal(test.sandboxed, true);
    assert.equal((await generateText({ model: test.model, prompt: 'hello' })).text, 'Echo: hello');
    assert.equal(fake.requests.length, 0);

    const live = registry.resolveModel('openai-compatible/llama3.1:8b', { environment: 'live' });
    assert.deepEqual([live.used, live.sandboxed], ['openai-compatible/llama3.1:8b', false]);
    assert.equal((await generateText({ model: live.model, prompt: 'hello' })).text, 'Fake reply to: hello');
    assert.equal(fake.requests[0]!.body.model, 'llama3.1:8b');

    const sandbox = registry.resolveModel('sandbox/echo', { environment: 'live' });
    assert.deepEqual([sandbox.used, sandbox.sandboxed], ['sandbox/echo', true]);
  });

  it('refuses an unconfigured provider', () => {
    assert.throws(
      () => registry.resolveModel('openai/gpt-4o', { environment: 'live' }),
      (e: unknown) => e instanceof registry.ModelError && e.code === 'model_provider_unavailable' && e.message === 'The openai provider is not configured on this server (set OPENAI_API_KEY)',
    );
    assert.equal(registry.resolveModel('anthropic/claude', { environment: 'test' }).used, 'sandbox/claude');
  });
});
