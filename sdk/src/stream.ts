import { backoff, sleep } from './core.js';
import { ApiConnectionError } from './errors.js';
import type { Execution, ExecutionEvent } from './types.js';

// An execution's events as an async iterable (docs/sdk.md), resumable: each Server-Sent Event
// carries the event's sequence number as its `id:`. When the connection drops before the stream
// ends, the client reconnects — to GET /v1/executions/{id}/stream with `Last-Event-ID` once it knows
// the execution, else by sending the same request again (its Idempotency-Key replays the same
// execution's stream) — and skips any event it has already yielded: none is lost or repeated.

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** The Server-Sent Events of a body (the WHATWG parsing rules: fields, comments, CR/LF/CRLF). */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let message: { id?: string; event?: string; data: string[] } = { data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (!done) buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone CR at the end may be the first half of a CRLF: wait for more (unless nothing more comes).
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1 && !done)) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (message.data.length > 0) yield { ...(message.id !== undefined ? { id: message.id } : {}), ...(message.event !== undefined ? { event: message.event } : {}), data: message.data.join('\n') };
          message = { data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') message.data.push(value);
        else if (field === 'event') message.event = value;
        else if (field === 'id' && !value.includes('\0')) message.id = value;
      }
      // What is left without a blank line after it is not a whole event (the WHATWG rules drop it).
      if (done) return;
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

/** The terminal events: nothing follows them. (A pause for approval, `tool.approval_requested`, ends a live stream too.) */
const TERMINAL = new Set<string>(['execution.succeeded', 'execution.failed', 'execution.cancelled']);
/** Statuses whose stream has nothing more to send now. */
const FINISHED = new Set<string>(['succeeded', 'failed', 'cancelled', 'requires_action']);

/** Opens (or reopens) the stream: after `lastEventId` of `executionId` when they are known. */
export type Connect = (resume: { executionId?: string; lastEventId?: string }) => Promise<Response>;

export class ExecutionStream implements AsyncIterable<ExecutionEvent> {
  /** The execution, once an event named it (the first one does). */
  executionId: string | undefined;
  /** The last event's sequence number (`id:`), what a reconnection resumes after. */
  lastEventId: string | undefined;
  private started = false;

  constructor(
    private readonly connect: Connect,
    private readonly opts: {
      maxReconnects: number;
      signal?: AbortSignal;
      executionId?: string;
      /** The execution's status now: a stream that ends with nothing new is over if the run is final or paused. */
      statusOf?: (executionId: string) => Promise<string>;
    },
  ) {
    this.executionId = opts.executionId;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ExecutionEvent> {
    if (this.started) throw new Error('An ExecutionStream can be iterated once');
    this.started = true;
    let lastSeq = this.lastEventId !== undefined && /^\d+$/.test(this.lastEventId) ? Number(this.lastEventId) : -1;
    let failures = 0;
    for (;;) {
      let body: ReadableStream<Uint8Array> | null = null;
      try {
        body = (await this.connect({ executionId: this.executionId, lastEventId: this.lastEventId })).body;
      } catch (err) {
        if (!(err instanceof ApiConnectionError) || this.opts.signal?.aborted) throw err;
      }
      // Whether the last event read is one after which the server ends the stream.
      let atEnd = false;
      let fresh = 0;
      let cleanEnd = false;
      if (body) {
        try {
          for await (const message of parseSse(body)) {
            const seq = message.id === undefined ? NaN : Number(message.id);
            if (Number.isFinite(seq) && seq <= lastSeq) continue; // replayed from the start: yielded already
            const event = JSON.parse(message.data) as ExecutionEvent;
            if (Number.isFinite(seq)) {
              lastSeq = seq;
              this.lastEventId = message.id;
            }
            const execution = (event as { execution?: Execution }).execution;
            if (execution?.id) this.executionId = execution.id;
            failures = 0;
            fresh++;
            yield event;
            if (TERMINAL.has(event.type)) return;
            // A pause ends a live stream; a replay of a run resumed since goes on past it.
            atEnd = event.type === 'tool.approval_requested';
          }
          cleanEnd = true;
        } catch (err) {
          if (this.opts.signal?.aborted || err instanceof SyntaxError) throw err;
          // The connection dropped mid-stream: resume below (unless it dropped just after a pause:
          // following it again would wait for the decision).
        }
        if (atEnd) return;
        // Ended with nothing new: the execution may be over already (its events all read).
        if (cleanEnd && fresh === 0 && this.executionId && this.opts.statusOf) {
          const status = await this.opts.statusOf(this.executionId);
          if (FINISHED.has(status)) return;
        }
      }
      if (++failures > this.opts.maxReconnects) {
        throw new ApiConnectionError(`The event stream was cut ${failures} times in a row${this.executionId ? ` (execution ${this.executionId}, after event ${this.lastEventId ?? 'none'})` : ''}`);
      }
      await sleep(backoff(failures - 1), this.opts.signal);
    }
  }

  /** Reads the stream to its end: the execution as its last event carried it (final, or paused for approval). */
  async finalExecution(): Promise<Execution> {
    let last: Execution | undefined;
    for await (const event of this) {
      const execution = (event as { execution?: Execution }).execution;
      if (execution) last = execution;
    }
    if (!last) throw new ApiConnectionError('The event stream ended without the execution');
    return last;
  }

  /** Reads the stream to its end: the text the model produced, joined in order. */
  async text(): Promise<string> {
    let text = '';
    for await (const event of this) if (event.type === 'text.delta') text += (event as { delta: string }).delta;
    return text;
  }
}
