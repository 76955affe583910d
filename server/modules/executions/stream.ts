import { eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { executions } from '../../../db/schema';
import { env } from '../../platform/env.js';
import { blockAround, PIECE_CHARS, readEvents, readPiece, TERMINAL, type Live, type StoredEvent } from './live';
import { isFinal, type ExecutionRow } from './lifecycle';

// Following an execution from any web process while it runs in any worker (docs/executions.md,
// "Streams"). A stream takes the execution's events from this process's tail (live.ts), writes
// them as Server-Sent Events after `Last-Event-ID`, and ends after the terminal event. It writes
// no faster than its client reads: past the socket's buffer it waits for the client to drain,
// and a client that does not within DRAIN_MS is dropped (its memory is one slice, not the
// execution). A client that goes away stops only its stream; `stop` (the key was revoked) ends it.

const PING_MS = 15_000;
/** A client that reads nothing of a full buffer for this long is dropped (STREAM_STALL_SECONDS). */
const DRAIN_MS = env.STREAM_STALL_SECONDS * 1000;
/** Writes go out in slices of this many characters, each after the client took the last. */
const SLICE = 64 * 1024;
/** `wait: true` relies on the terminal event's NOTIFY; this is only the floor under it. */
const WAIT_POLL_MS = 15_000;

/** Where an event stream is written: a node response (REST) or a web stream (the dashboard). */
export interface EventSink {
  /** Writes a chunk; false when the client's buffer is full (then wait for `drained`). */
  write(chunk: string): boolean;
  /** Resolves when the client has taken what was buffered (or the sink closed). */
  drained(): Promise<void>;
  end(): void;
  /** Drops the client (it stopped reading). */
  destroy(): void;
  readonly closed: boolean;
  onClose(fn: () => void): void;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
};

/** A web ReadableStream sink (the dashboard's route handler): pulled by the client, 64 KB of queue at most. */
export function webSink(): { sink: EventSink; stream: ReadableStream<Uint8Array> } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const closers: (() => void)[] = [];
  let pulled: (() => void) | null = null;
  const close = () => {
    if (closed) return;
    closed = true;
    pulled?.();
    for (const fn of closers) fn();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => {
        pulled?.();
        pulled = null;
      },
      cancel: close,
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  const sink: EventSink = {
    write: (chunk) => {
      if (closed) return true;
      controller.enqueue(encoder.encode(chunk));
      return (controller.desiredSize ?? 0) > 0;
    },
    drained: () => (closed || (controller.desiredSize ?? 0) > 0 ? Promise.resolve() : new Promise<void>((r) => (pulled = r))),
    end: () => {
      if (closed) return;
      controller.close();
      close();
    },
    destroy: () => {
      if (closed) return;
      controller.error(new Error('the client stopped reading'));
      close();
    },
    get closed() {
      return closed;
    },
    onClose: (fn) => void closers.push(fn),
  };
  return { sink, stream };
}

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

/** Writes stored events (large ones piece by piece from the database); the last one written, or null when the client is gone. */
async function sendStored(db: Db, executionId: string, sink: EventSink, events: StoredEvent[]): Promise<{ last: number; terminal: boolean } | null> {
  let last = -1;
  for (const e of events) {
    if (e.frame !== null) {
      if (!(await send(sink, e.frame))) return null;
    } else {
      // `{"type":…,` then the data without its opening brace, piece by piece, then the blank line.
      const around = blockAround(e.seq, e.type);
      if (!(await send(sink, around.before))) return null;
      for (let from = 1; from < e.length; from += PIECE_CHARS) {
        if (!(await send(sink, await readPiece(db, executionId, e.seq, from)))) return null;
      }
      if (!(await send(sink, around.after))) return null;
    }
    last = e.seq;
    if (TERMINAL.has(e.type)) return { last, terminal: true };
  }
  return { last, terminal: false };
}

/**
 * Writes the execution's events after `afterSeq` as Server-Sent Events, live until the
 * terminal event, then ends the stream (also when `stop` aborts, or the client leaves).
 * `final`: the execution had finished already: its events are replayed from the database alone.
 */
export async function streamEvents(opts: {
  db: Db;
  live: Live;
  executionId: string;
  afterSeq: number;
  sink: EventSink;
  stop?: AbortSignal;
  pingMs?: number;
  final?: boolean;
}): Promise<void> {
  const { db, live, executionId, sink, stop } = opts;
  let last = opts.afterSeq;
  if (opts.final) {
    try {
      while (!sink.closed && !stop?.aborted) {
        const page = await readEvents(db, executionId, last, { whole: false });
        const sent = page.length > 0 ? await sendStored(db, executionId, sink, page) : null;
        if (!sent || sent.terminal) return;
        last = sent.last;
      }
      return;
    } finally {
      if (!sink.closed) sink.end();
    }
  }
  const tail = live.acquire(executionId, opts.afterSeq);
  let waiting: { cancel: () => void } | null = null;
  const interrupt = () => waiting?.cancel();
  sink.onClose(interrupt);
  stop?.addEventListener('abort', interrupt);
  try {
    while (!sink.closed && !stop?.aborted) {
      const events = tail.after(last);
      if (events === null) {
        // Behind the window of recent events: the rest comes from the database, up to the window.
        const sent = await sendStored(db, executionId, sink, await readEvents(db, executionId, last, { below: tail.from, whole: false }));
        if (!sent || sent.terminal) return;
        if (sent.last >= 0) last = sent.last;
        else last = tail.from - 1; // nothing stored in between (a cancel's gap)
        continue;
      }
      if (events.length > 0) {
        for (const e of events) {
          if (!(await send(sink, e.frame))) return;
          last = e.seq;
          if (TERMINAL.has(e.type)) return;
        }
        continue;
      }
      const wait = tail.changed(opts.pingMs ?? PING_MS);
      waiting = wait;
      await wait.promise;
      waiting = null;
      // Nothing new after the wait: a comment line keeps proxies from closing an idle stream.
      if (tail.after(last)?.length === 0 && !sink.closed && !stop?.aborted && !(await send(sink, ': ping\n\n'))) return;
    }
  } finally {
    stop?.removeEventListener('abort', interrupt);
    live.release(tail);
    if (!sink.closed) sink.end();
  }
}

/** A subscription to an execution's terminal event, to open before the execution starts (see `waitForFinal`). */
export function watchFinal(live: Live, executionId: string) {
  let pending = false;
  let wake: (() => void) | null = null;
  const off = live.onFinal(executionId, () => {
    pending = true;
    wake?.();
  });
  return {
    signal: () => {
      pending = true;
      wake?.();
    },
    async wait(ms: number): Promise<void> {
      if (!pending) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            wake = null;
            resolve();
          }
          wake = done;
        });
      }
      pending = false;
    },
    close: off,
  };
}
export type Watch = ReturnType<typeof watchFinal>;

/**
 * Waits until the execution is final (or `timeoutMs` passed, or the caller left: `signal`) and
 * returns its row as it is then. With `watch` (opened before the execution was created), the
 * first read waits for a signal: nothing can have been missed.
 */
export async function waitForFinal(db: Db, live: Live, executionId: string, timeoutMs: number, signal?: AbortSignal, watch?: Watch): Promise<ExecutionRow> {
  const fresh = watch !== undefined;
  watch ??= watchFinal(live, executionId);
  signal?.addEventListener('abort', watch.signal, { once: true });
  const deadline = Date.now() + timeoutMs;
  try {
    if (fresh) await watch.wait(Math.min(WAIT_POLL_MS, timeoutMs));
    for (;;) {
      const [row] = await db.select().from(executions).where(eq(executions.id, executionId));
      // A caller that went away stops the wait (never the execution).
      if (!row || isFinal(row.status) || Date.now() >= deadline || signal?.aborted) return row!;
      await watch.wait(Math.min(WAIT_POLL_MS, deadline - Date.now()));
    }
  } finally {
    signal?.removeEventListener('abort', watch.signal);
    watch.close();
  }
}
