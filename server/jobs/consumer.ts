import type { Job, PgBoss } from 'pg-boss';
import type { Bus } from '../bus';
import { log } from '../log';

// One fetch loop per queue and process, for queues with many concurrent handlers (executions).
// pg-boss's own `work()` runs `concurrency` independent pollers, and a NOTIFY for one new job
// wakes them all: 20 fetches per job, per process. Here one loop fetches as many jobs as it has
// free slots, when a job is sent (NOTIFY `aas_jobs`, via the bus), when a handler finishes (a
// backlog drains at once), and every few seconds as a floor. It renews pg-boss's heartbeat of
// the jobs it holds, so a job of a process that died is handed out again.

const POLL_MS = 5_000;
const TOUCH_MS = 4_000;

export interface Consumer {
  /** Stops fetching and waits up to `timeoutMs` for running handlers. */
  stop(timeoutMs: number): Promise<void>;
}

export function consume<T extends object>(
  boss: PgBoss,
  bus: Bus,
  queue: string,
  handler: (job: Job<T>) => Promise<void>,
  concurrency: number,
): Consumer {
  const active = new Map<string, Promise<void>>();
  let wanted = true;
  let stopped = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    wanted = true;
    wake?.();
  };
  const offJobs = bus.subscribe('aas_jobs', (name) => name === queue && signal());
  const offReconnect = bus.onReconnect(signal);
  const toucher = setInterval(() => {
    if (active.size > 0) boss.touch(queue, [...active.keys()]).catch((err: unknown) => log.warn({ err, queue }, 'job heartbeat failed'));
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
        signal();
      });

  const loop = (async () => {
    while (!stopped) {
      const free = concurrency - active.size;
      if (wanted && free > 0) {
        wanted = false;
        let jobs: Job<T>[] = [];
        try {
          jobs = await boss.fetch<T>(queue, { batchSize: free });
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

  return {
    async stop(timeoutMs) {
      stopped = true;
      wake?.();
      offJobs();
      offReconnect();
      await loop;
      await Promise.race([Promise.allSettled([...active.values()]), new Promise((r) => setTimeout(r, timeoutMs))]);
      clearInterval(toucher);
    },
  };
}
