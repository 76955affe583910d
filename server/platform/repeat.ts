// A background loop of a process: runs `run`, waits `delayMs()` after it ends, runs it again,
// until stopped. Its timer never keeps the process alive; stopping waits for a run under way.
export function repeat(run: () => Promise<void>, delayMs: () => number, opts: { now?: boolean } = {}): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const arm = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run().finally(arm);
    }, delayMs());
    timer.unref();
  };
  if (opts.now) running = run().finally(arm);
  else arm();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
