import { log } from '../platform/log';

// The background loops of a process, started and stopped in one place (docs/concurrency.md,
// "Background loops"). Each loop's module exports a start function returning its stop; a list
// here says which run, in which order. They start in list order and stop in reverse, each stop
// awaited before the next: a loop stops after every loop that feeds it (the relay after the
// pool whose finishing runs write events to its outbox), so nothing one of them leaves behind at
// shutdown waits for a loop already gone.

export interface LoopDef {
  name: string;
  /** Starts the loop (its timers and subscriptions); returns how to stop it, letting work under way finish. */
  start(): (() => Promise<void>) | Promise<() => Promise<void>>;
}

export interface Loops {
  /** The loops running, in the order they started. */
  readonly names: readonly string[];
  /** Stops them in reverse order, each awaited; a stop that fails is logged and the rest still stop. */
  stop(): Promise<void>;
}

/** Starts `defs` in order; if one fails to start, those already started are stopped and the error thrown. */
export async function startLoops(defs: readonly LoopDef[]): Promise<Loops> {
  const started: { name: string; stop: () => Promise<void> }[] = [];
  const stopAll = async () => {
    for (const loop of started.splice(0).reverse()) {
      try {
        await loop.stop();
      } catch (err) {
        log.error({ err, loop: loop.name }, 'a background loop failed to stop');
      }
    }
  };
  try {
    for (const def of defs) started.push({ name: def.name, stop: await def.start() });
  } catch (err) {
    await stopAll();
    throw err;
  }
  const names = started.map((l) => l.name);
  return { names, stop: stopAll };
}
