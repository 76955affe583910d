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

export class Turns {
  private busy = false;
  /** Waiting calls per line; the Map's order is the turn (a served line goes to the back). */
  private readonly waiting = new Map<string, (() => void)[]>();

  /** Runs `call` when its line's turn comes (at once when nothing runs). */
  run<T>(call: () => Promise<T>): Promise<T> {
    if (!this.busy) {
      this.busy = true;
      return this.settle(call);
    }
    const line = lanes.getStore()?.name ?? BACKGROUND;
    return new Promise<T>((resolve, reject) => {
      const queue = this.waiting.get(line) ?? [];
      queue.push(() => void this.settle(call).then(resolve, reject));
      this.waiting.set(line, queue);
    });
  }

  /** Calls waiting in all lines (for tests). */
  get size(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
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

  private next(): void {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.busy = false;
      return;
    }
    const [line, queue] = first.value;
    const start = queue.shift()!;
    this.waiting.delete(line);
    if (queue.length > 0) this.waiting.set(line, queue);
    start();
  }
}
