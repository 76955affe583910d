import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible';
import { APICallError, type LanguageModelV4, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai';
import { fastCompatibleChat } from './compatible';

// The cheap reader of compatible.ts against the provider it stands in for, on the same fake
// OpenAI-compatible server (a real local HTTP server): the same stream parts for text, tool
// calls and parallel calls, the same errors (status, body message, retryable, a refused
// connection), and an abort that closes the connection.

let fake: FakeOpenAI;
before(async () => {
  fake = await startFakeOpenAI();
});
after(() => fake?.close());

function models(baseURL: string): { provider: LanguageModelV4; fast: LanguageModelV4 } {
  const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey: 'sk-test', includeUsage: true }).chatModel('fake-1');
  assert.ok(provider instanceof OpenAICompatibleChatLanguageModel);
  return { provider, fast: fastCompatibleChat(provider, { baseURL, apiKey: 'sk-test' }) };
}

const WEATHER = { type: 'function' as const, name: 'weather', description: 'The weather in a city', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] } };
const call = (text: string, extra: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({ prompt: [{ role: 'user', content: [{ type: 'text', text }] }], ...extra });

/**
 * The parts a model streams, without what differs by nature: the response metadata, and the
 * tool call ids (the fake numbers its calls across requests): each becomes `call#<n>` in order.
 */
async function parts(model: LanguageModelV4, options: LanguageModelV4CallOptions): Promise<unknown[]> {
  const { stream } = await model.doStream(options);
  const out: unknown[] = [];
  const ids = new Map<string, string>();
  const idOf = (id: string) => ids.get(id) ?? (ids.set(id, `call#${ids.size}`), ids.get(id)!);
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) {
    if (part.type === 'response-metadata') continue;
    if (part.type === 'finish') out.push({ type: 'finish', finishReason: part.finishReason, usage: part.usage });
    else if (part.type === 'tool-call') out.push({ ...part, toolCallId: idOf(part.toolCallId) });
    else if (part.type.startsWith('tool-input-')) out.push({ ...part, id: idOf((part as { id: string }).id) });
    else out.push(part);
  }
  return out;
}

describe('the cheap OpenAI-compatible reader', () => {
  it('streams the same parts as the provider: text', async () => {
    const { provider, fast } = models(fake.url);
    const want = await parts(provider, call('hello there'));
    assert.ok(want.filter((p) => (p as { type: string }).type === 'text-delta').length > 1);
    assert.deepEqual(await parts(fast, call('hello there')), want);
  });

  it('the same parts with a tool call, and with three calls at once', async () => {
    const { provider, fast } = models(fake.url);
    const options = call('what is the weather in Paris', { tools: [WEATHER] });
    for (const parallelCalls of [1, 3]) {
      fake.set({ parallelCalls });
      const want = await parts(provider, options);
      assert.equal(want.filter((p) => (p as { type: string }).type === 'tool-call').length, parallelCalls);
      assert.deepEqual(await parts(fast, options), want);
    }
    fake.reset();
  });

  it('sends the provider’s request, streamed with usage', async () => {
    const { provider, fast } = models(fake.url);
    const options = call('what is the weather in Paris', { tools: [WEATHER], temperature: 0.3 });
    fake.reset();
    await parts(provider, options);
    await parts(fast, options);
    const [a, b] = fake.requests;
    assert.deepEqual(b!.body, a!.body);
    assert.equal(b!.headers.authorization, 'Bearer sk-test');
    assert.equal(b!.path, a!.path);
  });

  it('fails as the provider does: the status, the body’s message, retryable or not', async () => {
    const { provider, fast } = models(fake.url);
    for (const status of [401, 429, 500]) {
      fake.set({ status });
      const errors: APICallError[] = [];
      for (const model of [provider, fast]) {
        await assert.rejects(async () => model.doStream(call('hello')), (err: unknown) => (APICallError.isInstance(err) ? (errors.push(err), true) : false));
      }
      const [a, b] = errors;
      assert.deepEqual([b!.statusCode, b!.message, b!.isRetryable], [a!.statusCode, a!.message, a!.isRetryable], `HTTP ${status}`);
    }
    fake.reset();
  });

  it('a refused connection is a retryable call error with the network error as its cause', async () => {
    const closed = await startFakeOpenAI();
    const url = closed.url;
    await closed.close();
    const { fast } = models(url);
    await assert.rejects(async () => fast.doStream(call('hello')), (err: unknown) => {
      assert.ok(APICallError.isInstance(err));
      assert.equal(err.isRetryable, true);
      assert.match(err.message, /^Cannot connect to API/);
      assert.equal((err.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
  });

  it('an abort mid-answer ends the stream and closes the connection', async () => {
    const { fast } = models(fake.url);
    const before = fake.aborted;
    const controller = new AbortController();
    const { stream } = await fast.doStream(call('a slow answer please', { abortSignal: controller.signal }));
    const reader = stream.getReader();
    const first = await reader.read();
    assert.equal(first.done, false);
    controller.abort();
    await assert.rejects(async () => {
      for (;;) if ((await reader.read()).done) throw new Error('ended without the abort');
    });
    await fake.waitFor(() => fake.aborted > before, 5_000);
  });

  it('keeps its connection for the next call: the body is read to its end, not dropped at [DONE]', async () => {
    // A server that ends each answer `endAfterMs` after its [DONE]. Each call used to close its
    // connection (the body dropped before its end) and the next opened another: with a hosted
    // model, a TLS handshake a call.
    let connections = 0;
    let endAfterMs = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'fake-1' };
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`);
        res.write('data: [DONE]\n\n');
        if (endAfterMs < Infinity) setTimeout(() => res.end(), endAfterMs);
      });
    });
    let closed = 0;
    server.on('connection', (socket) => {
      connections++;
      socket.on('close', () => closed++);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { fast } = models(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1`);
      const answer = async () => {
        const got = await parts(fast, call('hello'));
        assert.equal(got.filter((p) => (p as { type: string }).type === 'finish').length, 1);
      };
      for (let i = 0; i < 5; i++) {
        await answer();
        // Time for the body's end to be read (it follows [DONE] in a packet of its own).
        await new Promise((r) => setTimeout(r, 50));
      }
      // The end comes with [DONE]: drained in the background, every call on one connection.
      assert.equal(connections, 1, `${connections} connections for 5 calls`);
      // The end comes 300 ms after [DONE]: the call is answered at [DONE] all the same.
      endAfterMs = 300;
      const t0 = performance.now();
      await answer();
      assert.ok(performance.now() - t0 < 250, 'answered at [DONE], not at the end of the body');
      // A server that never ends the response after [DONE]: answered at once, and its connection
      // closed by us within the drain's second (a stuck body would hold a pool connection).
      endAfterMs = Infinity;
      const t1 = performance.now();
      const closedBefore = closed;
      await answer();
      assert.ok(performance.now() - t1 < 250, 'answered at [DONE]');
      while (closed === closedBefore && performance.now() - t1 < 5_000) await new Promise((r) => setTimeout(r, 20));
      assert.ok(closed > closedBefore, 'the connection of the unended body was closed');
      assert.ok(performance.now() - t1 >= 900, `closed after the drain's second, not at once (${Math.round(performance.now() - t1)} ms)`);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
