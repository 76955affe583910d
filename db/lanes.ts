import { AsyncLocalStorage } from 'node:async_hooks';

// Turns at the embedded database, taken fairly (docs/concurrency.md, "The embedded database").
// PGlite runs one statement or transaction at a time, in this process, first come first served:
// while workspace A's flood kept hundreds of statements waiting (its runs' events, its streams,
// the claims of its 10,000 queued runs), workspace B's list request waited behind all of them
// (p50 823 ms, p99 2.3 s, measured 2026-11-26). Here every call into PGlite waits in the line of
// whoever makes it — a request names its workspace once it is known, everything else (workers,
// relays, tickers) shares the background line — and lines are served in turn, one call each. So
// a request waits for the call under way and at most one call of each other line, whatever the
// backlog of any of them. A transaction is one call: it keeps its turn until it ends.

export interface Lane {
  /** The line this async context's calls wait in: `background` until a request says whose it is. */
  name: string;
  /** This request has had a turn already: its next calls go ahead of its line's requests that have not. */
  begun?: boolean;
}

// On globalThis: Next evaluates this module again in its own chunks (the dashboard's procedures
// name their line there), and every copy must read the one store the server's requests run in.
const KEY = Symbol.for('agent-service.db-lanes');
const lanes = ((globalThis as unknown as Record<symbol, AsyncLocalStorage<Lane> | undefined>)[KEY] ??= new AsyncLocalStorage<Lane>());

/** Runs `fn` (a request's handling) in a line of its own, named later with `nameLane`. */
export function inLane<T>(name: string, fn: () => T): T {
  return lanes.run({ name }, fn);
}

/** Names the current request's line (its workspace, once the caller is known). No-op outside a request. */
export function nameLane(name: string): void {
  const lane = lanes.getStore();
  if (lane) lane.name = name;
}

export const BACKGROUND = 'background';

/**
 * Calls run back to back without the event loop coming round for longer than this: the next
 * waits for a turn of the loop. PGlite answers in the same turn of the loop (its promises settle
 * as microtasks), so without this a burst of requests that arrived together ran one after the
 * other to their end, ~5 ms each, inside one poll phase: for the ~1 s that 200 of them took, no
 * socket was read, no model's answer, no timer (200 streams at once: no first token for ~1 s).
 */
const SLICE_MS = 4;

interface Waiting {
  /** Calls of requests that have had a turn (and of the background), served first. */
  begun: (() => void)[];
  /** First calls of requests that have not. */
  fresh: (() => void)[];
}

export class Turns {
  private busy = false;
  /** Waiting calls per line; the Map's order is the turn (a served line goes to the back). */
  private readonly waiting = new Map<string, Waiting>();
  /** When the calls run since the event loop last came round began (0: it has come round). */
  private sliceFrom = 0;

  /** Runs `call` when its line's turn comes (at once when nothing runs and the loop came round lately). */
  run<T>(call: () => Promise<T>): Promise<T> {
    const lane = lanes.getStore();
    if (!this.busy && !this.sliced()) {
      this.busy = true;
      if (lane) lane.begun = true;
      return this.settle(call);
    }
    const line = lane?.name ?? BACKGROUND;
    return new Promise<T>((resolve, reject) => {
      const queue = this.waiting.get(line) ?? { begun: [], fresh: [] };
      (lane && !lane.begun ? queue.fresh : queue.begun).push(() => {
        if (lane) lane.begun = true;
        void this.settle(call).then(resolve, reject);
      });
      this.waiting.set(line, queue);
      if (!this.busy) {
        // Nothing runs, but the slice is used up: the next call after the loop has come round.
        this.busy = true;
        setImmediate(() => this.next());
      }
    });
  }

  /** Calls waiting in all lines (for tests). */
  get size(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.begun.length + q.fresh.length;
    return n;
  }

  /** Whether calls have run for SLICE_MS without the loop coming round (which a set immediate tells). */
  private sliced(): boolean {
    const now = performance.now();
    if (this.sliceFrom === 0) {
      this.sliceFrom = now;
      setImmediate(() => (this.sliceFrom = 0));
      return false;
    }
    return now - this.sliceFrom > SLICE_MS;
  }

  private settle<T>(call: () => Promise<T>): Promise<T> {
    let done: Promise<T>;
    try {
      done = call();
    } catch (err) {
      done = Promise.reject(err);
    }
    return done.finally(() => this.next());
  }

  /** `looked`: the loop has come round since this call found only first calls waiting in the next line. */
  private next(looked = false): void {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.busy = false;
      return;
    }
    const [line, queue] = first.value;
    // Only new requests wait in this line: first let the request whose call just ended make its
    // next one (it does so a few promise callbacks later), which goes ahead of them.
    if (queue.begun.length === 0 && !looked) return void setImmediate(() => this.next(true));
    const start = queue.begun.shift() ?? queue.fresh.shift()!;
    this.waiting.delete(line);
    if (queue.begun.length + queue.fresh.length > 0) this.waiting.set(line, queue);
    // In a later turn of the event loop when the slice is used up (sockets read, timers run).
    if (this.sliced()) setImmediate(start);
    else start();
  }
}
