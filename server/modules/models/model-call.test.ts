import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible';
import { jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai';
import { DIRECT_PARTS, fastCompatibleChat } from './compatible';
import { modelCall, type ModelCallArgs } from './model-call';

// The run's model call without web streams (model-call.ts) against the AI SDK's own call on the
// same model and the same answers (a real local HTTP server): the same parts the run's loop reads
// — text, tool calls valid and not, the finish with its usage, an error in the stream — in the
// same order.

let fake: FakeOpenAI;
before(async () => {
  fake = await startFakeOpenAI();
});
after(() => fake?.close());

/** The model with its direct parts, and the same model as the SDK alone sees it. */
function models(baseURL: string) {
  const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey: 'sk-test', includeUsage: true }).chatModel('fake-1');
  assert.ok(provider instanceof OpenAICompatibleChatLanguageModel);
  const direct = fastCompatibleChat(provider, { baseURL, apiKey: 'sk-test' });
  const sdk: Record<PropertyKey, unknown> = { ...direct };
  delete sdk[DIRECT_PARTS];
  return { direct, sdk: sdk as unknown as typeof direct };
}

const TOOLS: ToolSet = {
  weather: tool({ description: 'The weather in a city', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }),
};

/** The parts of one call as the loop reads them (tool call ids numbered in order: the fake numbers them across requests). */
async function parts(args: ModelCallArgs): Promise<unknown[]> {
  const { stream } = await modelCall(args);
  const out: unknown[] = [];
  const ids = new Map<string, string>();
  const idOf = (id: string) => ids.get(id) ?? (ids.set(id, `call#${ids.size}`), ids.get(id)!);
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        out.push({ type: part.type, text: part.text });
        break;
      case 'tool-call':
        out.push({ type: part.type, id: idOf(part.toolCallId), toolName: part.toolName, input: part.input, invalid: part.invalid === true });
        break;
      case 'tool-error':
        out.push({ type: part.type, id: idOf(part.toolCallId), toolName: part.toolName, error: part.error });
        break;
      case 'model-call-end':
        out.push({ type: part.type, finishReason: part.finishReason, usage: part.usage });
        break;
      case 'error': {
        const e = part.error as { name?: string; message?: string; statusCode?: number; isRetryable?: boolean };
        out.push({ type: part.type, name: e.name, message: e.message, statusCode: e.statusCode, isRetryable: e.isRetryable });
        break;
      }
    }
  }
  return out;
}

const ask = (text: string): ModelMessage[] => [{ role: 'user', content: text }];

/** A server that answers every request with these Server-Sent Events (`data:` payloads). */
async function answering(events: unknown[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of events) res.write(`data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'fake-1' };
const delta = (d: object, finish: string | null = null, usage?: object) => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }], ...(usage ? { usage } : {}) });

describe('the model call without web streams', () => {
  it('the same parts as the SDK’s call: a text answer, its finish and usage', async () => {
    const { direct, sdk } = models(fake.url);
    const args = { instructions: 'Be brief.', messages: ask('hello there'), temperature: 0.2 };
    const want = await parts({ ...args, model: sdk });
    assert.ok(want.filter((p) => (p as { type: string }).type === 'text-delta').length > 1);
    assert.equal((want.at(-1) as { type: string }).type, 'model-call-end');
    assert.deepEqual(await parts({ ...args, model: direct }), want);
    // The same request went out both times.
    const [a, b] = fake.requests.slice(-2);
    assert.deepEqual(b!.body, a!.body);
  });

  it('the same parts with a tool call, and with three at once', async () => {
    const { direct, sdk } = models(fake.url);
    for (const parallelCalls of [1, 3]) {
      fake.set({ parallelCalls });
      const args = { messages: ask('what is the weather in Paris'), tools: TOOLS };
      const want = await parts({ ...args, model: sdk });
      assert.equal(want.filter((p) => (p as { type: string }).type === 'tool-call').length, parallelCalls);
      assert.deepEqual(await parts({ ...args, model: direct }), want);
    }
    fake.reset();
  });

  it('an invalid call (an unknown tool; arguments that are not JSON) comes with its tool-error, as from the SDK', async () => {
    const call = (index: number, name: string, args: string) => ({ index, id: `call_${index}`, type: 'function', function: { name, arguments: args } });
    const server = await answering([
      delta({ role: 'assistant', tool_calls: [call(0, 'nope', '{}'), call(1, 'weather', '{"city": ')] }),
      delta({}, 'tool_calls', { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
      '[DONE]',
    ]);
    try {
      const { direct, sdk } = models(server.url);
      const args = { messages: ask('weather?'), tools: TOOLS };
      const want = await parts({ ...args, model: sdk });
      assert.deepEqual(
        want.map((p) => (p as { type: string }).type),
        ['tool-call', 'tool-error', 'tool-call', 'tool-error', 'model-call-end'],
      );
      assert.deepEqual(await parts({ ...args, model: direct }), want);
    } finally {
      await server.close();
    }
  });

  it('an error in the answer is the SDK’s error: its message, status and retryability', async () => {
    const server = await answering([delta({ role: 'assistant', content: 'hel' }), { error: { message: 'Overloaded', type: 'server_error', code: 503 } }, '[DONE]']);
    try {
      const { direct, sdk } = models(server.url);
      const want = await parts({ messages: ask('hello'), model: sdk });
      const error = want.find((p) => (p as { type: string }).type === 'error') as { name: string; statusCode: number; isRetryable: boolean };
      assert.ok(error, 'the SDK gave an error part');
      assert.equal(error.isRetryable, true);
      assert.deepEqual(await parts({ messages: ask('hello'), model: direct }), want);
    } finally {
      await server.close();
    }
  });

  it('a refused request throws before any part, as the SDK’s call does', async () => {
    const { direct, sdk } = models(fake.url);
    fake.set({ status: 429 });
    const errors: { statusCode?: number; isRetryable?: boolean }[] = [];
    for (const model of [sdk, direct]) {
      await assert.rejects(() => modelCall({ model, messages: ask('hello') }), (err: unknown) => (errors.push(err as { statusCode?: number }), true));
    }
    assert.deepEqual([errors[1]!.statusCode, errors[1]!.isRetryable], [errors[0]!.statusCode, errors[0]!.isRetryable]);
    fake.reset();
  });

  it('a reader that stops early lets the answer go (its connection is closed)', async () => {
    const { direct } = models(fake.url);
    const before = fake.aborted;
    const { stream } = await modelCall({ model: direct, messages: ask('a slow answer please') });
    for await (const part of stream) if (part.type === 'text-delta') break;
    await fake.waitFor(() => fake.aborted > before, 5_000);
  });
});
