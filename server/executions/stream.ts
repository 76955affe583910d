import type { ServerResponse } from 'node:http';
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { executionEvents, executions } from '../../db/schema';
import type { Bus } from '../bus';
import { isFinal, type ExecutionRow } from './status';

// Following an execution from any web process while it runs in any worker (DESIGN.md 6.2).
// The events table is the truth; a NOTIFY on `aas_execution` only says "read again", and a
// poll every 2 s covers a missed signal (or a listener that reconnected). A stream replays the
// events after `Last-Event-ID`, follows live ones and ends after the terminal event.

const TERMINAL = new Set(['execution.succeeded', 'execution.failed', 'execution.cancelled']);
const POLL_MS = 2_000;
const PAGE = 500;

/** Wakes a waiter when the execution's events change; `wait()` resolves on a signal, after `ms`, or on `stop`. */
function watcher(bus: Bus, executionId: string, finalOnly = false) {
  let pending = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    pending = true;
    wake?.();
  };
  const prefix = `${executionId}:`;
  const offEvents = bus.subscribe(
    'aas_execution',
    (payload) => payload.startsWith(prefix) && (!finalOnly || payload.endsWith(':final')) && signal(),
  );
  const offReconnect = bus.onReconnect(signal);
  return {
    signal,
    async wait(ms: number): Promise<void> {
      if (pending) {
        pending = false;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
      pending = false;
    },
    close() {
      offEvents();
      offReconnect();
    },
  };
}

export function sseBlock(seq: number, type: string, data: unknown): string {
  return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`;
}

/** Where an event stream is written: a node response (REST) or a web stream (the dashboard). */
export interface EventSink {
  write(chunk: string): void;
  end(): void;
  readonly closed: boolean;
  onClose(fn: () => void): void;
}

export function responseSink(res: ServerResponse): EventSink {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  return {
    write: (chunk) => void res.write(chunk),
    end: () => res.end(),
    get closed() {
      return res.destroyed || res.writableEnded;
    },
    onClose: (fn) => void res.once('close', fn),
  };
}

/**
 * Writes the execution's events after `afterSeq` as Server-Sent Events, live until the
 * terminal event, then ends the stream. A client that goes away stops only its stream.
 */
export async function streamEvents(opts: { db: Db; bus: Bus; executionId: string; afterSeq: number; res?: ServerResponse; sink?: EventSink; pingMs?: number }): Promise<void> {
  const { db, bus, executionId } = opts;
  const sink = opts.sink ?? responseSink(opts.res!);
  const watch = watcher(bus, executionId);
  const ping = setInterval(() => sink.write(': ping\n\n'), opts.pingMs ?? 15_000);
  sink.onClose(watch.signal);
  let last = opts.afterSeq;
  try {
    while (!sink.closed) {
      const rows = await db
        .select({ seq: executionEvents.seq, type: executionEvents.type, data: executionEvents.data })
        .from(executionEvents)
        .where(and(eq(executionEvents.executionId, executionId), gt(executionEvents.seq, last)))
        .orderBy(asc(executionEvents.seq))
        .limit(PAGE);
      let finished = false;
      for (const row of rows) {
        sink.write(sseBlock(row.seq, row.type, row.data));
        last = row.seq;
        if (TERMINAL.has(row.type)) finished = true;
      }
      if (finished) break;
      if (rows.length < PAGE) await watch.wait(POLL_MS);
    }
  } finally {
    clearInterval(ping);
    watch.close();
    if (!sink.closed) sink.end();
  }
}

/** The same stream as a web Response (route handlers of the dashboard). */
export function eventStreamResponse(opts: { db: Db; bus: Bus; executionId: string; afterSeq: number }): Response {
  const encoder = new TextEncoder();
  let closed = false;
  const closers: (() => void)[] = [];
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const sink: EventSink = {
        write: (chunk) => !closed && controller.enqueue(encoder.encode(chunk)),
        end: () => {
          if (closed) return;
          closed = true;
          controller.close();
        },
        get closed() {
          return closed;
        },
        onClose: (fn) => void closers.push(fn),
      };
      void streamEvents({ ...opts, sink }).catch(() => sink.end());
    },
    cancel() {
      closed = true;
      for (const fn of closers) fn();
    },
  });
  return new Response(stream, {
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
  });
}

/** A subscription to an execution's terminal event, to open before the execution starts (see `waitForFinal`). */
export const watchFinal = (bus: Bus, executionId: string) => watcher(bus, executionId, true);
type Watch = ReturnType<typeof watchFinal>;

/**
 * Waits until the execution is final (or `timeoutMs` passed, or the caller left) and returns its
 * row as it is then. With `watch` (opened before the execution was created), the first read
 * waits for a signal: nothing can have been missed.
 */
export async function waitForFinal(db: Db, bus: Bus, executionId: string, timeoutMs: number, res?: ServerResponse, watch?: Watch): Promise<ExecutionRow> {
  const fresh = watch !== undefined;
  watch ??= watchFinal(bus, executionId);
  res?.once('close', watch.signal);
  const deadline = Date.now() + timeoutMs;
  try {
    if (fresh) await watch.wait(Math.min(POLL_MS, timeoutMs));
    for (;;) {
      const [row] = await db.select().from(executions).where(eq(executions.id, executionId));
      // A caller that went away stops the wait (never the execution).
      if (!row || isFinal(row.status) || Date.now() >= deadline || res?.destroyed) return row!;
      await watch.wait(Math.min(POLL_MS, deadline - Date.now()));
    }
  } finally {
    watch.close();
  }
}
