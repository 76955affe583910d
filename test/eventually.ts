import assert from 'node:assert/strict';

// The one way a test waits for something to happen: it polls what it would assert, every few
// milliseconds, and fails naming what never came (and the last value read) after a deadline.
// It never sleeps "long enough": a test ends the moment its condition holds.

export interface EventuallyOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Poll this often (default 10 ms). */
  everyMs?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads `read()` until `done(value)` holds; returns that value. */
export async function eventually<T>(what: string, read: () => T | Promise<T>, done: (value: T) => boolean, opts: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 10 } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not reached in ${timeoutMs} ms (last: ${JSON.stringify(value)?.slice(0, 300)})`);
    await pause(everyMs);
  }
}

/** Waits until `check()` is true. */
export async function until(what: string, check: () => boolean | Promise<boolean>, opts: EventuallyOptions = {}): Promise<void> {
  await eventually(what, check, Boolean, opts);
}
