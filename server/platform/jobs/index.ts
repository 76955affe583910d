import { sql } from 'drizzle-orm';
import { fromDrizzle, fromPglite, PgBoss, type Job, type QueueOptions } from 'pg-boss';
import type { Database, Db } from '../../../db/client';
import type { Bus } from '../bus';
import { consume, type ConsumeHandler, type Consumer } from './consumer';
import { log } from '../log';

// Durable jobs in the database (pg-boss), on PostgreSQL and on the embedded PGlite alike.
// Workers are woken by LISTEN/NOTIFY the moment a job is committed (polling stays on as a
// floor); a job sent inside an application transaction exists only if that transaction
// commits (an outbox). Agent executions and webhook deliveries are queues declared here.

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
  /** The job's group (see `consume`'s `groupConcurrency`). */
  group?: string;
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
  /** Enqueues several jobs in one statement; with `tx`, as part of that transaction. */
  sendMany<T extends object>(spec: QueueSpec<T>, jobs: { data: T; group?: string; startAfter?: Date }[], opts?: { tx?: Db }): Promise<void>;
  /** Runs `handler` for the queue's jobs in this process (workers only). */
  work<T extends object>(spec: QueueSpec<T>, handler: (job: Job<T>) => Promise<void>, opts?: WorkOptions): Promise<void>;
  /**
   * Like `work`, for many concurrent handlers: one fetch loop for the process (consumer.ts).
   * `groupConcurrency`: at most this many jobs of one `group` run at once, across all processes.
   */
  consume<T extends object>(spec: QueueSpec<T>, handler: ConsumeHandler<T>, opts: { concurrency: number; groupConcurrency?: number }): void;
  /** Sends a job to the queue on a cron schedule (kept in the database: one schedule for every process). */
  schedule<T extends object>(spec: QueueSpec<T>, cron: string, data?: T): Promise<void>;
  /** Stops fetching, waits up to `timeoutMs` for running handlers, and closes pg-boss's connections. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts pg-boss on the application's database (its own schema `pgboss`, migrated at start).
 * Processes that run workers also keep the schedules (cron) running.
 */
export async function openJobs(database: Database, bus: Bus, opts: { workers: boolean }): Promise<Jobs> {
  const common = { useListenNotify: true, schedule: opts.workers, supervise: opts.workers };
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pgliteDefault!), backend: 'pglite', ...common })
      : new PgBoss({ connectionString: database.url!, max: 4, application_name: 'agent-service-jobs', ...common });
  boss.on('error', (err: Error) => log.error({ err }, 'job queue error'));
  await boss.start();
  const declared = new Set<string>();
  const consumers = new Map<string, Consumer>();

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
      const job = () =>
        boss.send(spec.name, data, {
          ...(opts.tx ? { db: fromDrizzle(opts.tx as unknown as Parameters<typeof fromDrizzle>[0], sql) } : {}),
          ...(opts.singletonKey ? { singletonKey: opts.singletonKey } : {}),
          ...(opts.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
          ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
          ...(opts.group ? { group: { id: opts.group } } : {}),
        });
      // The NOTIFY wakes the queue's consumers (consumer.ts). Inside `tx` it is delivered at the
      // commit, so both go together (one round trip, pipelined); without, after the job exists.
      // A job due later says when (`<queue>@<epoch ms>`): consumers set a timer for it.
      const due = opts.startAfter?.getTime() ?? (opts.startAfterSeconds ? Date.now() + opts.startAfterSeconds * 1000 : undefined);
      const wake = () => (opts.tx ?? database.db).execute(sql`select pg_notify('aas_jobs', ${due ? `${spec.name}@${due}` : spec.name})`);
      if (opts.tx) return (await Promise.all([job(), wake()]))[0];
      const id = await job();
      await wake();
      return id;
    },
    async sendMany(spec, items, opts = {}) {
      if (!declared.has(spec.name)) throw new Error(`Queue ${spec.name} was not declared at start-up`);
      if (items.length === 0) return;
      const insert = () =>
        boss.insert(
          spec.name,
          items.map((item) => ({
            data: item.data,
            ...(item.group ? { group: { id: item.group } } : {}),
            ...(item.startAfter ? { startAfter: item.startAfter } : {}),
          })),
          opts.tx ? { db: fromDrizzle(opts.tx as unknown as Parameters<typeof fromDrizzle>[0], sql) } : {},
        );
      // As in `send`: inside `tx` the NOTIFY goes out at the commit; without, after the jobs exist.
      const wake = () => (opts.tx ?? database.db).execute(sql`select pg_notify('aas_jobs', ${spec.name})`);
      if (opts.tx) await Promise.all([insert(), wake()]);
      else await insert().then(wake);
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
    consume(spec, handler, opts) {
      consumers.set(spec.name, consume(boss, bus, spec.name, handler as never, opts.concurrency, opts.groupConcurrency));
    },
    async stop(timeoutMs = 10_000) {
      await Promise.all([...consumers.values()].map((c) => c.stop(timeoutMs)));
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    },
  };
}
