import type { Job, PgBoss } from 'pg-boss';
import type { Bus } from '../bus';
import { log } from '../log';

// One fetch loop per queue and process, for queues with many concurrent handlers (webhook
// deliveries; executions have no job: their row is the queue, server/modules/executions/pool.ts).
// pg-boss's own `work()` runs `concurrency` independent pollers, and a NOTIFY for one new job
// wakes them all: 20 fetches per job, per process. Here one loop fetches as many jobs as it has
// free slots, when a job is sent (NOTIFY `aas_jobs`, via the bus), when a handler finishes and
// jobs were announced meanwhile or the last batch was full (a backlog drains at once), and every
// few seconds as a floor. It renews pg-boss's heartbeat of
// the jobs it holds, so a job of a process that died is handed out again.

const POLL_MS = 5_000;
const TOUCH_MS = 4_000;
const MAX_DUE = 1_000;

export interface Consumer {
  /** Stops fetching and waits up to `timeoutMs` for running handlers. */
  stop(timeoutMs: number): Promise<void>;
}

/** A job's handler: the job completes when it resolves, and fails when it throws. */
export type ConsumeHandler<T> = (job: Job<T>) => Promise<unknown>;

export function consume<T extends object>(
  boss: PgBoss,
  bus: Bus,
  queue: string,
  handler: ConsumeHandler<T>,
  concurrency: number,
  groupConcurrency?: number,
): Consumer {
  const active = new Map<string, Promise<void>>();
  let wanted = true;
  let stopped = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    wanted = true;
    wake?.();
  };
  // Jobs due later (`<queue>@<epoch ms>`): fetch when each is due. Due times are kept sorted
  // (at most MAX_DUE; beyond, the poll floor catches them) under one timer for the earliest.
  const dues: number[] = [];
  let dueTimer: NodeJS.Timeout | null = null;
  const arm = () => {
    if (dueTimer) clearTimeout(dueTimer);
    dueTimer = null;
    const next = dues[0];
    if (next === undefined || stopped) return;
    dueTimer = setTimeout(() => {
      const now = Date.now();
      while (dues.length > 0 && dues[0]! <= now) dues.shift();
      signal();
      arm();
    }, Math.max(0, next - Date.now()) + 5);
    dueTimer.unref();
  };
  const signalAt = (at: number) => {
    if (!Number.isFinite(at) || at <= Date.now()) return signal();
    if (dues.length >= MAX_DUE || dues.includes(at)) return;
    const i = dues.findIndex((d) => d > at);
    dues.splice(i === -1 ? dues.length : i, 0, at);
    if (i === 0 || dues.length === 1) arm();
  };
  const offJobs = bus.subscribe('aas_jobs', (payload) => {
    const [name, at] = payload.split('@');
    if (name !== queue) return;
    if (at === undefined) signal();
    else signalAt(Number(at));
  });
  const offReconnect = bus.onReconnect(signal);
  const toucher = setInterval(() => {
    const jobs = [...active.keys()];
    if (jobs.length > 0) boss.touch(queue, jobs).catch((err: unknown) => log.warn({ err, queue }, 'job heartbeat failed'));
  }, TOUCH_MS);

  const run = (job: Job<T>): Promise<void> =>
    handler(job)
      .then(
        async () => void (await boss.complete(queue, job.id)),
        async (err: unknown) => void (await boss.fail(queue, job.id, { message: err instanceof Error ? err.message : String(err) })),
      )
      .catch((err: unknown) => log.error({ err, queue, job: job.id }, 'could not settle a job'))
      .finally(() => {
        active.delete(job.id);
        // A slot is free: fetch if a job was announced meanwhile (or the last batch was full).
        freed();
      });

  const loop = (async () => {
    while (!stopped) {
      const free = concurrency - active.size;
      if (wanted && free > 0) {
        wanted = false;
        let jobs: Job<T>[] = [];
        try {
          jobs = await boss.fetch<T>(queue, { batchSize: free, ...(groupConcurrency ? { groupConcurrency } : {}) });
        } catch (err) {
          log.error({ err, queue }, 'job fetch failed');
          await new Promise((r) => setTimeout(r, 1_000));
          wanted = true;
          continue;
        }
        // A full batch: there may be more waiting.
        if (jobs.length === free) wanted = true;
        for (const job of jobs) active.set(job.id, run(job));
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wanted = true;
          done();
        }, POLL_MS);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  })();

  const freed = () => wanted && wake?.();
  return {
    async stop(timeoutMs) {
      stopped = true;
      wake?.();
      offJobs();
      offReconnect();
      if (dueTimer) clearTimeout(dueTimer);
      await loop;
      // The timer is cleared once the handlers are done: a pending one would keep the process
      // alive for the whole timeout after everything closed (a test file's exit waited 10 s).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...active.values()]), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
      clearInterval(toucher);
    },
  };
}
