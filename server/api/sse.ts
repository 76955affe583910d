import type { ServerResponse } from 'node:http';
import type { FollowEvent } from '../modules/executions/engine';
import { env } from '../platform/env.js';
import { eventSink, type EventSink } from './sse-sinks';

// The one writer of event streams (docs/executions.md, "Streams (SSE)"): execute with `stream`,
// GET /v1/executions/:id/stream, the replay of an idempotent streamed execute and the
// dashboard's live view all hand the engine's events (`engine.follow`) to `writeEvents`. It
// frames each event as a Server-Sent Event, pulls the next one only once the client has taken
// the last (past the socket's buffer it waits; a client that takes nothing for
// STREAM_STALL_SECONDS is dropped), keeps an idle stream alive with a comment line, and ends
// the stream after the terminal event. A client that leaves, or `stop` (the key was revoked),
// ends the following, never the run.

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
};

const PING_MS = 15_000;
/** A client that reads nothing of a full buffer for this long is dropped (STREAM_STALL_SECONDS). */
const DRAIN_MS = env.STREAM_STALL_SECONDS * 1000;
/** Writes go out in slices of this many characters, each after the client took the last. */
const SLICE = 64 * 1024;

/** An event as a Server-Sent Event block: `id:` its sequence number, `event:` its type, `data:` the whole event. */
export const sseBlock = (seq: number, type: string, json: string): string => `id: ${seq}\nevent: ${type}\ndata: ${json}\n\n`;

/** Writes `text` slice by slice, waiting for the client between them; false when the client was dropped or left. */
async function send(sink: EventSink, text: string): Promise<boolean> {
  for (let i = 0; i < text.length; i += SLICE) {
    if (sink.closed) return false;
    if (!sink.write(i === 0 && text.length <= SLICE ? text : text.slice(i, i + SLICE))) {
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        sink.drained().then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), DRAIN_MS))),
      ]);
      clearTimeout(timer);
      if (!drained) {
        sink.destroy();
        return false;
      }
    }
  }
  return !sink.closed;
}

/** Writes one event; false when the client is gone. */
async function sendEvent(sink: EventSink, e: FollowEvent): Promise<boolean> {
  if (e.json !== null) return send(sink, sseBlock(e.seq, e.type, e.json));
  // Larger than a read page: the block around the JSON text, which comes piece by piece.
  if (!(await send(sink, `id: ${e.seq}\nevent: ${e.type}\ndata: `))) return false;
  for await (const piece of e.pieces()) if (!(await send(sink, piece))) return false;
  return send(sink, '\n\n');
}

const PING = Symbol('ping');

/**
 * The reason a stream's signal aborts with: one AbortError made once. `abort()` without a reason
 * makes a DOMException each time, with its stack (~25 µs a stream in the profile of a burst).
 */
const STREAM_ENDED = new DOMException('The stream ended', 'AbortError');

/**
 * Writes the events `follow` gives (called with a signal that aborts when the client leaves or
 * `stop` aborts) to `sink` as Server-Sent Events, then ends the stream.
 */
export async function writeEvents(
  sink: EventSink,
  follow: (signal: AbortSignal) => AsyncIterable<FollowEvent>,
  opts: { stop?: AbortSignal; pingMs?: number } = {},
): Promise<void> {
  const controller = new AbortController();
  const abort = () => controller.abort(STREAM_ENDED);
  sink.onClose(abort);
  opts.stop?.addEventListener('abort', abort);
  if (opts.stop?.aborted) abort();
  const events = follow(controller.signal)[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  try {
    while (!controller.signal.aborted) {
      const next = events.next();
      let r: IteratorResult<FollowEvent> | typeof PING;
      // Nothing new for a while: a comment line keeps proxies from closing an idle stream.
      while ((r = await Promise.race([next, new Promise<typeof PING>((ok) => (timer = setTimeout(ok, opts.pingMs ?? PING_MS, PING)))])) === PING) {
        if (!(await send(sink, ': ping\n\n'))) abort();
      }
      clearTimeout(timer);
      if (r.done || !(await sendEvent(sink, r.value))) return;
    }
  } finally {
    clearTimeout(timer);
    abort();
    opts.stop?.removeEventListener('abort', abort);
    await events.return?.();
    if (!sink.closed) sink.end();
  }
}

/** A node response as an event stream: 200 with the SSE headers at once, then the events. */
export function writeEventsTo(res: ServerResponse, follow: (signal: AbortSignal) => AsyncIterable<FollowEvent>, stop?: AbortSignal): Promise<void> {
  // No Connection header of ours: Node writes `Connection: keep-alive` with `Keep-Alive: timeout=5`
  // only when it writes the header itself, and without the timeout a client kept the connection
  // by its own default and reused it as the server closed it (test/api/connections.int.test.ts).
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  return writeEvents(eventSink(res), follow, { stop });
}

/**
 * Aborts when the response closes before its end (the client went away): a wait stops, the run
 * goes on. A response that ended as it should aborts nothing (an abort builds a DOMException with
 * its stack: once per `wait` request, for no one).
 */
export function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed) controller.abort();
  else
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  return controller.signal;
}
