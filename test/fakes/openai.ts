import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { argumentsFor, chunksOf, pickTool, subjectOf } from '../../server/modules/models/sandbox';

// A fake OpenAI-compatible chat completions server for integration tests: a real node:http
// server on 127.0.0.1 that the real @ai-sdk/openai-compatible provider talks to
// (OPENAI_COMPATIBLE_BASE_URL = fake.url). POST /v1/chat/completions, plain or streamed (SSE),
// with usage. Deterministic like the sandbox: a tool call when the last user message names an
// offered tool that has no result yet, else "Fake reply to: <last user text>". A user text with
// the word "slow" streams with a long pause between chunks, so a test can cancel mid-call and
// see `aborted` count the disconnect. `status` answers an error instead (500, 401…);
// `parallelCalls: n` makes a tool call n times at once in one step.

export interface Behaviour {
  /** Before the first byte (ms), default 1. */
  latencyMs: number;
  /** Between streamed chunks (ms), default 0; for a "slow" text, default 10 000. */
  chunkDelayMs: number;
  /** The reply text instead of "Fake reply to: …". */
  reply?: (body: ChatBody) => string;
  /** Answer this HTTP error status (with an OpenAI-style error body) instead. */
  status?: number;
  /** Keep each request in `requests` (default true); a benchmark turns it off to stay flat in memory. */
  record?: boolean;
  /** Called with each response's time from request arrival to response end (ms). */
  onServed?: (ms: number) => void;
  /** A tool call is made this many times at once (parallel calls in one step), default 1. */
  parallelCalls?: number;
}

export interface FakeRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatBody;
}

export interface FakeOpenAI {
  /** Base URL, e.g. http://127.0.0.1:40123/v1 (OPENAI_COMPATIBLE_BASE_URL). */
  url: string;
  requests: FakeRequest[];
  /** Requests whose client disconnected before the response ended. */
  aborted: number;
  /** Responses ended, and the sum of their times from request arrival to response end (ms): the model's time. */
  served: number;
  servedMs: number;
  /** Requests being answered now, and the most there ever were at once (how many calls the service made in parallel). */
  inFlight: number;
  maxInFlight: number;
  set(behaviour: Partial<Behaviour>): void;
  /** Back to the starting behaviour, with no requests recorded. */
  reset(): void;
  close(): Promise<void>;
  waitFor(pred: () => boolean, timeoutMs?: number): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

export interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string; parameters?: JSONSchema7 } }>;
  max_tokens?: number;
  max_completion_tokens?: number;
  /** Structured outputs: OpenAI's strict `json_schema`. */
  response_format?: { type: string; json_schema?: { name?: string; strict?: boolean; schema?: JSONSchema7 } };
}

const DEFAULTS: Behaviour = { latencyMs: 1, chunkDelayMs: 0 };
const SLOW_DELAY_MS = 10_000;

const textOf = (m: ChatMessage | undefined) =>
  typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join('');

/** Text, or one tool call (name and JSON arguments). */
type Answer = { text: string; call?: undefined } | { text?: undefined; call: { name: string; arguments: string } };

/** The deterministic answer to a request (the sandbox's rule, on the chat completions shape). */
function answer(body: ChatBody, behaviour: Behaviour): Answer {
  const messages = body.messages ?? [];
  const last = messages.findLastIndex((m) => m.role === 'user');
  const userText = textOf(messages[last]);
  const after = messages.slice(last + 1);
  const called = new Map<string, string>(); // tool call id → tool name
  for (const m of after) for (const c of m.tool_calls ?? []) called.set(c.id, c.function.name);
  const answered = new Set(after.filter((m) => m.role === 'tool').map((m) => called.get(m.tool_call_id ?? '') ?? ''));
  const tools = (body.tools ?? []).filter((t) => t.type === 'function').map((t) => t.function);
  const name = pickTool(userText, tools.map((t) => t.name), answered);
  const chosen = tools.find((t) => t.name === name);
  if (chosen) return { call: { name: chosen.name, arguments: JSON.stringify(argumentsFor(chosen.parameters, subjectOf(userText, chosen.name))) } };
  if (behaviour.reply) return { text: behaviour.reply(body) };
  // Asked for a JSON Schema's object (strict structured outputs): one, made up from the schema.
  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
  if (schema) return { text: JSON.stringify(argumentsFor(schema, userText.slice(0, 60))) };
  const results = after.filter((m) => m.role === 'tool').map(textOf);
  if (results.length > 0) return { text: `Fake reply to: ${userText} (tool results: ${results.join(', ')})` };
  return { text: `Fake reply to: ${userText}` };
}

const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

export async function startFakeOpenAI(initial: Partial<Behaviour> = {}): Promise<FakeOpenAI> {
  let behaviour: Behaviour = { ...DEFAULTS, ...initial };
  let calls = 0;

  async function respond(body: ChatBody, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const b = behaviour;
    await sleep(b.latencyMs, undefined, { signal });
    if (b.status) {
      const error = { message: `Fake error ${b.status}`, type: b.status === 401 ? 'invalid_request_error' : 'server_error', code: null };
      return void res.writeHead(b.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
    }
    let a = answer(body, b);
    // A maximum output cuts the answer there, as a real server does: what fits of it as text, `length`.
    const max = body.max_completion_tokens ?? body.max_tokens;
    const wanted = a.call ? a.call.name.length + a.call.arguments.length : (a.text ?? '').length;
    const cut = max !== undefined && Math.ceil(wanted / 4) > max;
    if (cut) a = { text: (a.call ? `${a.call.name} ${a.call.arguments}` : (a.text ?? '')).slice(0, max * 4) };
    const slow = /\bslow\b/i.test(textOf((body.messages ?? []).findLast((m) => m.role === 'user')));
    const delay = slow ? b.chunkDelayMs || SLOW_DELAY_MS : b.chunkDelayMs;
    const id = `chatcmpl-${++calls}`;
    const toolCalls = a.call ? Array.from({ length: b.parallelCalls ?? 1 }, (_, i) => ({ id: i === 0 ? `call_${calls}` : `call_${calls}_${i}`, type: 'function', function: a.call })) : [];
    const text = a.text ?? '';
    const finish = cut ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const output = a.call ? (a.call.name.length + a.call.arguments.length) * toolCalls.length : text.length;
    const promptTokens = tokens(JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? []));
    const completionTokens = Math.max(1, Math.ceil(output / 4));
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const base = { id, object: 'chat.completion', created: 1_700_000_000, model: body.model ?? 'fake' };

    if (!body.stream) {
      const message = toolCalls.length > 0 ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: text };
      const json = JSON.stringify({ ...base, choices: [{ index: 0, message, finish_reason: finish }], usage });
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(json);
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (chunk: object) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...chunk })}\n\n`);
    const deltas: object[] =
      toolCalls.length > 0
        ? toolCalls.flatMap((call, index) => [
            { ...(index === 0 ? { role: 'assistant' } : {}), tool_calls: [{ index, ...call, function: { name: call.function.name, arguments: '' } }] },
            { tool_calls: [{ index, function: { arguments: call.function.arguments } }] },
          ])
        : chunksOf(text).map((content, i) => (i === 0 ? { role: 'assistant', content } : { content }));
    for (const [i, delta] of deltas.entries()) {
      if (i > 0 && delay > 0) await sleep(delay, undefined, { signal });
      send({ choices: [{ index: 0, delta, finish_reason: null }] });
    }
    send({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
    if (body.stream_options?.include_usage) send({ choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req, res) => {
    const arrived = performance.now();
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    res.on('close', () => state.inFlight--);
    res.on('finish', () => {
      const took = performance.now() - arrived;
      state.served++;
      state.servedMs += took;
      behaviour.onServed?.(took);
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake.invalid').pathname;
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Not found"}}');
      }
      let body: ChatBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody;
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"Invalid JSON"}}');
      }
      if (behaviour.record !== false) state.requests.push({ path, headers: req.headers, body });
      const controller = new AbortController();
      res.on('close', () => {
        if (!res.writableEnded) {
          state.aborted++;
          controller.abort();
        }
      });
      respond(body, res, controller.signal).catch(() => {
        if (!res.writableEnded) res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const state: FakeOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    requests: [],
    aborted: 0,
    served: 0,
    servedMs: 0,
    inFlight: 0,
    maxInFlight: 0,
    set: (next) => void (behaviour = { ...behaviour, ...next }),
    reset: () => {
      behaviour = { ...DEFAULTS, ...initial };
      state.requests.length = 0;
      state.aborted = 0;
      state.served = 0;
      state.servedMs = 0;
      state.maxInFlight = state.inFlight;
      calls = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
    waitFor: async (pred, timeoutMs = 2000) => {
      const until = Date.now() + timeoutMs;
      while (!pred()) {
        if (Date.now() > until) throw new Error(`fake OpenAI: condition not met within ${timeoutMs} ms`);
        await sleep(10);
      }
    },
  };
  return state;
}
