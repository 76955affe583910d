import { sql } from 'drizzle-orm';
import { fromDrizzle, fromPglite, PgBoss, type Job, type QueueOptions } from 'pg-boss';
import type { Database, Db } from '../../../db/client';
import { log } from '../log';

// Durable jobs in the database (pg-boss), on PostgreSQL and on the embedded PGlite alike: the
// maintenance job and its schedule. (Executions and webhook deliveries are claimed from their
// own rows: executions/pool.ts, webhooks/lanes.ts.) A job sent inside an application transaction
// exists only if that transaction commits (an outbox).

export interface QueueSpec<T extends object> {
  name: string;
  options?: QueueOptions;
  /** The job's payload type, for `send` and `work` (never read at run time). */
  readonly payload?: T;
}

/** A queue's spec with its payload type. */
export function queue<T extends object>(name: string, options: QueueOptions = {}): QueueSpec<T> {
  return { name, options };
}

export interface SendOptions {
  tx?: Db;
  singletonKey?: string;
  startAfterSeconds?: number;
  /** Not before this time. */
  startAfter?: Date;
}

export interface WorkOptions {
  /** Jobs this process runs at once on the queue. */
  concurrency?: number;
  /** Seconds between polls when no NOTIFY arrives (the floor under LISTEN/NOTIFY). */
  pollingIntervalSeconds?: number;
}

export interface Jobs {
  /** Creates the queues (idempotent); every queue is declared at start-up, before any send. */
  declare(...specs: QueueSpec<object>[]): Promise<void>;
  /** Enqueues a job; with `tx`, as part of that transaction (sent only if it commits). */
  send<T extends object>(spec: QueueSpec<T>, data: T, opts?: SendOptions): Promise<string | null>;
  /** Runs `handler` for the queue's jobs in this process (workers only). */
  work<T extends object>(spec: QueueSpec<T>, handler: (job: Job<T>) => Promise<void>, opts?: WorkOptions): Promise<void>;
  /** Deletes queues no longer used, with their jobs (idempotent). */
  retire(...names: string[]): Promise<void>;
  /** Sends a job to the queue on a cron schedule (kept in the database: one schedule for every process). */
  schedule<T extends object>(spec: QueueSpec<T>, cron: string, data?: T): Promise<void>;
  /** Stops fetching, waits up to `timeoutMs` for running handlers, and closes pg-boss's connections. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts pg-boss on the application's database (its own schema `pgboss`, migrated at start).
 * Processes that run workers also keep the schedules (cron) running.
 */
export async function openJobs(database: Database, opts: { workers: boolean }): Promise<Jobs> {
  const common = { useListenNotify: true, schedule: opts.workers, supervise: opts.workers };
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pgliteDefault!), backend: 'pglite', ...common })
      : new PgBoss({ connectionString: database.url!, max: 4, application_name: 'agent-service-jobs', ...common });
  boss.on('error', (err: Error) => log.error({ err }, 'job queue error'));
  await boss.start();
  const declared = new Set<string>();

  return {
    async declare(...specs) {
      for (const spec of specs) {
        if (declared.has(spec.name)) continue;
        if (!(await boss.getQueue(spec.name))) await boss.createQueue(spec.name, { notify: true, ...spec.options });
        // Puts the queue in pg-boss's cache now: a send inside an app transaction on PGlite (one
        // connection) would otherwise look it up from inside that transaction and wait forever.
        await boss.getJobById(spec.name, '00000000-0000-0000-0000-000000000000');
        declared.add(spec.name);
      }
    },
    async send(spec, data, opts = {}) {
      if (!declared.has(spec.name)) throw new Error(`Queue ${spec.name} was not declared at start-up`);
      // pg-boss wakes its workers itself (the queue is created with `notify`, and LISTEN is on).
      return boss.send(spec.name, data, {
        ...(opts.tx ? { db: fromDrizzle(opts.tx as unknown as Parameters<typeof fromDrizzle>[0], sql) } : {}),
        ...(opts.singletonKey ? { singletonKey: opts.singletonKey } : {}),
        ...(opts.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
        ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
      });
    },
    async work(spec, handler, opts = {}) {
      await boss.work<typeof spec.payload & object>(
        spec.name,
        {
          batchSize: 1,
          localConcurrency: opts.concurrency ?? 4,
          pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2,
        },
        async ([job]) => {
          if (job) await handler(job as Job<never>);
        },
      );
    },
    async schedule(spec, cron, data) {
      await boss.schedule(spec.name, cron, data ?? null, { tz: 'UTC' });
    },
    async retire(...names) {
      for (const name of names) if (await boss.getQueue(name)) await boss.deleteQueue(name);
    },
    async stop(timeoutMs = 10_000) {
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    },
  };
}
