import { APICallError, type LanguageModelV4, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart, type LanguageModelV4StreamResult } from '@ai-sdk/provider';
import type { OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible';
import { convertOpenAICompatibleChatUsage, mapOpenAICompatibleFinishReason } from '@ai-sdk/openai-compatible/internal';
import { STATUS_CODES } from 'node:http';
import { StreamingToolCallTracker } from '@ai-sdk/provider-utils';
import { Agent, request, type Dispatcher } from 'undici';
import { PartQueue } from './part-queue';

// The streamed answers of an OpenAI-compatible server at a fraction of the provider's CPU
// (docs/benchmark.md, "Model clients"). The request is the provider's own (`prepareRequest`:
// the same messages, tools, settings and warnings); the answer is read with undici's `request`
// (a Node stream, no WHATWG stream per layer) and a hand-written Server-Sent Events split, each
// chunk parsed once with JSON.parse and mapped to the stream parts the AI SDK reads — the
// provider's mapping (its doStream) without its per-chunk schema validation and stream
// pipeline. 40 streamed tokens cost 2.5 ms of CPU this way against 6.1 ms for the provider's
// doStream (same machine, same fake model). Everything else (doGenerate, the retries and the
// agent loop of the AI SDK) is unchanged.

/** One pool of connections per process for the model server (keep-alive across runs). */
let pool: Agent | undefined;
const dispatcher = () => (pool ??= new Agent({ keepAliveTimeout: 30_000, connections: 256 }));

interface ChunkDelta {
  content?: string | { type: string; text?: string }[] | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  refusal?: string | null;
  tool_calls?: ToolCallDelta[] | null;
}
interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}
interface Chunk {
  id?: string | null;
  created?: number | null;
  model?: string | null;
  choices?: { delta?: ChunkDelta | null; finish_reason?: string | null }[];
  usage?: Parameters<typeof convertOpenAICompatibleChatUsage>[0];
  error?: unknown;
}

export interface CompatibleSettings {
  baseURL: string;
  apiKey?: string;
}

/**
 * A model's streamed parts without a web stream (part-queue.ts), for the run's loop
 * (model-call.ts): the same parts, in the same order, as its `doStream`'s stream holds.
 */
export const DIRECT_PARTS = Symbol('direct parts');
export type DirectParts = (options: LanguageModelV4CallOptions) => Promise<PartQueue>;

/** `inner`, streaming through the cheap reader; generating (non-streamed) as it does. */
export function fastCompatibleChat(inner: OpenAICompatibleChatLanguageModel, settings: CompatibleSettings): LanguageModelV4 & { [DIRECT_PARTS]: DirectParts } {
  const url = `${settings.baseURL.replace(/\/+$/, '')}/chat/completions`;
  return {
    specificationVersion: 'v4',
    provider: inner.provider,
    modelId: inner.modelId,
    get supportedUrls() {
      return inner.supportedUrls;
    },
    doGenerate: (options) => inner.doGenerate(options),
    doStream: (options) => stream(inner, url, settings, options),
    [DIRECT_PARTS]: async (options) => {
      const answer = await open(inner, url, settings, options);
      const parts = new PartQueue(() => void answer.res.body.destroy());
      pump(answer, parts);
      return parts;
    },
  };
}

async function stream(inner: OpenAICompatibleChatLanguageModel, url: string, settings: CompatibleSettings, options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
  const answer = await open(inner, url, settings, options);
  const parts = new ReadableStream<LanguageModelV4StreamPart>({
    start: (controller) => pump(answer, controller),
    cancel: () => void answer.res.body.destroy(),
  });
  return { stream: parts, request: { body: answer.body }, response: { headers: answer.responseHeaders } };
}

/** Where an answer's parts go: a ReadableStream's controller (`doStream`), or a PartQueue (the run's loop). */
type PartSink = Pick<ReadableStreamDefaultController<LanguageModelV4StreamPart>, 'enqueue' | 'close' | 'error'>;

/** The answer's parts into `out`, from its `stream-start` to its end (closed) or its failure. */
function pump(answer: Pick<Awaited<ReturnType<typeof open>>, 'res' | 'warnings'>, out: PartSink): void {
  out.enqueue({ type: 'stream-start', warnings: answer.warnings });
  void read(answer.res.body, new Mapper(out)).then(
    () => out.close(),
    (err: unknown) => out.error(err),
  );
}

/** The request sent and its answer's head: an APICallError, as the provider throws it, for a connection that failed or a status that is not 2xx. */
async function open(inner: OpenAICompatibleChatLanguageModel, url: string, settings: CompatibleSettings, options: LanguageModelV4CallOptions) {
  const { body: args, warnings } = await inner.prepareRequest(options);
  const body = { ...args, stream: true, stream_options: { include_usage: true } };
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  for (const [k, v] of Object.entries(options.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, { method: 'POST', headers, body: text, signal: options.abortSignal, dispatcher: dispatcher() });
  } catch (err) {
    if (options.abortSignal?.aborted) throw err;
    // As the provider reports it: a retryable call error with the network error as its cause.
    throw new APICallError({ message: `Cannot connect to API: ${(err as Error).message}`, url, requestBodyValues: body, cause: err, isRetryable: true });
  }
  const responseHeaders = flatHeaders(res.headers);
  if (res.statusCode < 200 || res.statusCode > 299) {
    const responseBody = await res.body.text().catch(() => '');
    throw new APICallError({
      message: errorMessage(res.statusCode, responseBody),
      url,
      requestBodyValues: body,
      statusCode: res.statusCode,
      responseHeaders,
      responseBody,
      isRetryable: res.statusCode === 408 || res.statusCode === 409 || res.statusCode === 429 || res.statusCode >= 500,
    });
  }
  return { res, warnings, body, responseHeaders };
}

/**
 * Past `[DONE]`, how long the rest of a body may take (its end comes at once from a server that
 * behaves), and what the whole body may have held by then, before its connection is closed rather
 * than given back to the pool: a server that keeps the response open holds no connection of ours.
 */
const DRAIN_MS = 1_000;
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** Reads what is left of a body in the background, then gives its connection back (or closes it, past DRAIN_MS or DRAIN_LIMIT). */
function drain(body: Dispatcher.ResponseData['body']): void {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DRAIN_MS);
  body
    .dump({ limit: DRAIN_LIMIT, signal: controller.signal })
    .catch(() => {})
    .finally(() => clearTimeout(timer));
}

/**
 * Server-Sent Events by hand: lines split, `data:` lines parsed as JSON until `[DONE]`. The run
 * goes on at `[DONE]`, and the rest of the body is read in the background (`drain`): a body
 * dropped before its end closes its connection, and every model call then opened a new one (a
 * new TLS handshake with a hosted model; docs/platform-notes.md).
 */
async function read(body: Dispatcher.ResponseData['body'], mapper: Mapper): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const dispatch = () => {
    if (data.length === 0) return false;
    const payload = data.length === 1 ? data[0]! : data.join('\n');
    data = [];
    if (payload === '[DONE]') return true;
    let chunk: Chunk;
    try {
      chunk = JSON.parse(payload) as Chunk;
    } catch (err) {
      mapper.error(err);
      return false;
    }
    mapper.chunk(chunk);
    return false;
  };
  for await (const bytes of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>) {
    buffer += typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n', start)) {
      const line = buffer.slice(start, buffer.charCodeAt(end - 1) === 13 ? end - 1 : end);
      start = end + 1;
      // A blank line ends an event; `data:` lines make its payload; comments and other fields are skipped.
      if (line === '') {
        if (dispatch()) {
          mapper.flush();
          drain(body);
          return;
        }
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
      }
    }
    buffer = buffer.slice(start);
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.charCodeAt(5) === 32 ? 6 : 5));
  dispatch();
  mapper.flush();
}

/** The provider's mapping of chat-completion chunks to stream parts (its doStream), without the validation. */
class Mapper {
  private text = false;
  private reasoning = false;
  private refusal = false;
  private metadata = false;
  private rawFinish: string | undefined;
  private failed = false;
  private usage: Chunk['usage'];
  // Tool calls as the provider puts them together (its tracker, its buffering of arguments that
  // arrive before the name): the same tool-input and tool-call parts, in the same order.
  private readonly tracker: StreamingToolCallTracker;
  private readonly pending = new Map<number, { id: string | null; args: string }>();
  private readonly forwarded = new Set<number>();

  constructor(private readonly out: Pick<ReadableStreamDefaultController<LanguageModelV4StreamPart>, 'enqueue'>) {
    this.tracker = new StreamingToolCallTracker(out);
  }

  error(error: unknown): void {
    this.failed = true;
    this.out.enqueue({ type: 'error', error });
  }

  chunk(c: Chunk): void {
    if (c.error !== undefined && c.error !== null) return this.error(c.error);
    if (!this.metadata && (c.id || c.model || c.created)) {
      this.metadata = true;
      this.out.enqueue({
        type: 'response-metadata',
        ...(c.id ? { id: c.id } : {}),
        ...(c.model ? { modelId: c.model } : {}),
        ...(c.created ? { timestamp: new Date(c.created * 1000) } : {}),
      });
    }
    if (c.usage) this.usage = c.usage;
    const choice = c.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.rawFinish = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return;
    const thinking = delta.reasoning_content ?? delta.reasoning;
    if (thinking) this.reasoningDelta(thinking);
    if (typeof delta.content === 'string') {
      if (delta.content.length > 0) this.textDelta(delta.content);
    } else if (Array.isArray(delta.content)) {
      for (const part of delta.content) if (part.type === 'text' && typeof part.text === 'string' && part.text.length > 0) this.textDelta(part.text);
    }
    if (delta.refusal) {
      this.refusal = true;
      this.textDelta(delta.refusal);
    }
    if (delta.tool_calls?.length) {
      this.endReasoning();
      for (const t of delta.tool_calls) this.toolCallDelta(t);
    }
  }

  private toolCallDelta(t: ToolCallDelta): void {
    const index = t.index;
    if (index === null || index === undefined || this.forwarded.has(index)) return this.tracker.processDelta(t);
    let pending = this.pending.get(index);
    if (!pending) this.pending.set(index, (pending = { id: t.id ?? null, args: '' }));
    else if (pending.id === null && t.id) pending.id = t.id;
    if (t.function?.arguments) pending.args += t.function.arguments;
    if (t.function?.name !== null && t.function?.name !== undefined) {
      this.tracker.processDelta({ index, id: pending.id, function: { name: t.function.name, arguments: pending.args } });
      this.pending.delete(index);
      this.forwarded.add(index);
    }
  }

  /** The end of the answer: open parts closed, the tool calls, and the finish with its usage. */
  flush(): void {
    this.endReasoning();
    if (this.text) this.out.enqueue({ type: 'text-end', id: 'txt-0' });
    this.text = false;
    for (const [index, pending] of this.pending) this.tracker.processDelta({ index, id: pending.id, function: { arguments: pending.args } });
    this.pending.clear();
    this.tracker.flush();
    let unified = this.rawFinish !== undefined ? mapOpenAICompatibleFinishReason(this.rawFinish, { hasRefusal: this.refusal }) : ('error' as const);
    if (this.failed) unified = 'error';
    if (this.rawFinish === undefined && !this.failed) this.error(new Error('Response stream ended without a finish reason.'));
    this.out.enqueue({ type: 'finish', finishReason: { unified, raw: this.rawFinish }, usage: convertOpenAICompatibleChatUsage(this.usage) });
  }

  private textDelta(delta: string): void {
    this.endReasoning();
    if (!this.text) this.out.enqueue({ type: 'text-start', id: 'txt-0' });
    this.text = true;
    this.out.enqueue({ type: 'text-delta', id: 'txt-0', delta });
  }

  private reasoningDelta(delta: string): void {
    if (this.text) this.out.enqueue({ type: 'text-end', id: 'txt-0' });
    this.text = false;
    if (!this.reasoning) this.out.enqueue({ type: 'reasoning-start', id: 'reasoning-0' });
    this.reasoning = true;
    this.out.enqueue({ type: 'reasoning-delta', id: 'reasoning-0', delta });
  }

  private endReasoning(): void {
    if (this.reasoning) this.out.enqueue({ type: 'reasoning-end', id: 'reasoning-0' });
    this.reasoning = false;
  }
}

/** The message of an error answer, as the provider reads it: `error.message` of a JSON body, else the status text. */
function errorMessage(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // not JSON: the status says it
  }
  return STATUS_CODES[status] ?? `HTTP ${status}`;
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
