import { eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { executions } from '../../../db/schema';
import { PAUSE_EVENT_TYPE, type ExecutionEventType } from './events';
import { eventPieces, readEvents, TERMINAL, type Live, type StoredEvent } from './live';
import type { ExecutionRow } from './lifecycle';
import { isSettled } from '../vocabulary/statuses';

// Following an execution from any process while it runs in any worker (docs/executions.md,
// "Streams"): its events after a sequence number, as an async iterable, live until the terminal
// event. Events come from this process's tail of the execution (live.ts), and from the database
// for those behind the tail's window or when the execution had finished already. Nothing here
// knows HTTP: the edge (server/api/sse.ts) pulls the events, writes them as Server-Sent Events
// no faster than its client reads, and keeps idle streams alive.

/** `wait: true` relies on the terminal event's NOTIFY; this is only the floor under it. */
const WAIT_POLL_MS = 15_000;
/** A following iterable looks at its tail at least this often (a missed wake costs no more). */
const LOOK_MS = 30_000;

/** One event of an execution: its JSON text, or (larger than a read page) its text in pieces. */
export type FollowEvent =
  | { seq: number; type: ExecutionEventType; json: string }
  | { seq: number; type: ExecutionEventType; json: null; length: number; pieces(): AsyncIterable<string> };

export interface FollowOptions {
  executionId: string;
  /** Events after this sequence number (0: from the start; `Last-Event-ID` on a reconnect). */
  afterSeq: number;
  /** Ends the iteration (the client left, the key was revoked). */
  signal: AbortSignal;
  /** The execution had finished already: its events are read from the database alone. */
  final?: boolean;
}

function stored(db: Db, executionId: string, e: StoredEvent): FollowEvent {
  return e.json !== null
    ? { seq: e.seq, type: e.type, json: e.json }
    : { seq: e.seq, type: e.type, json: null, length: e.length, pieces: () => eventPieces(db, executionId, e) };
}

/**
 * The execution's events after `afterSeq`, in order, until its terminal event, or its pause for
 * approval when nothing follows it yet (a paused run's stream ends there: docs/approvals.md), or
 * `signal`.
 */
export async function* followEvents(db: Db, live: Live, opts: FollowOptions): AsyncGenerator<FollowEvent> {
  const { executionId, signal } = opts;
  let last = opts.afterSeq;
  if (opts.final) {
    while (!signal.aborted) {
      const page = await readEvents(db, executionId, last, { whole: false });
      if (page.length === 0) return;
      for (const e of page) {
        yield stored(db, executionId, e);
        if (TERMINAL.has(e.type)) return;
        last = e.seq;
      }
    }
    return;
  }
  const tail = live.acquire(executionId, opts.afterSeq);
  let waiting: { cancel: () => void } | null = null;
  const interrupt = () => waiting?.cancel();
  signal.addEventListener('abort', interrupt);
  try {
    while (!signal.aborted) {
      const events = tail.after(last);
      if (events === null) {
        // Behind the window of recent events: the rest comes from the database, up to the window.
        const page = await readEvents(db, executionId, last, { below: tail.from, whole: false });
        for (const e of page) {
          yield stored(db, executionId, e);
          if (TERMINAL.has(e.type) || (e.type === PAUSE_EVENT_TYPE && tail.hi === e.seq)) return;
          last = e.seq;
        }
        if (page.length === 0) last = tail.from - 1; // nothing stored in between (a cancel's gap)
        continue;
      }
      for (const e of events) {
        yield e;
        if (TERMINAL.has(e.type) || (e.type === PAUSE_EVENT_TYPE && tail.hi === e.seq)) return;
        last = e.seq;
      }
      if (events.length > 0 || signal.aborted) continue;
      const change = tail.changed(LOOK_MS);
      waiting = change;
      await change.promise;
      waiting = null;
    }
  } finally {
    signal.removeEventListener('abort', interrupt);
    live.release(tail);
  }
}

/** How long `wait: true` waits beyond the run's own timeout before answering with the execution as it is. */
export const WAIT_GRACE_SECONDS = 30;

/** The longest an agent's run may take (agents' `timeoutSeconds` at most): how long a wait for a run whose timeout is not at hand may last, before the grace. */
export const LONGEST_RUN_SECONDS = 900;

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
 * Waits until the execution is final or paused for approval (or `timeoutMs` passed, or the caller left: `signal`) and
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
      if (!row || isSettled(row.status) || Date.now() >= deadline || signal?.aborted) return row!;
      await watch.wait(Math.min(WAIT_POLL_MS, deadline - Date.now()));
    }
  } finally {
    signal?.removeEventListener('abort', watch.signal);
    watch.close();
  }
}
