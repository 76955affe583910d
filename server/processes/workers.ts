import { ExecutionPool } from '../modules/executions/pool';
import { env } from '../platform/env.js';
import { Headroom } from '../platform/headroom';
import { log } from '../platform/log';
import type { ProcessRuntime } from '../modules/runtime';
import { startDeliveries } from '../modules/webhooks/dispatcher';
import { startCompactor } from '../modules/usage/compactor';
import { startRelay } from '../modules/webhooks/relay';
import { startScheduleTicker } from '../modules/schedules/ticker';
import { MAINTENANCE_CRON, maintenanceQueue, runMaintenance } from './maintenance';

// Every queue of the service, declared by every process at start-up (a send inside a transaction on
// PGlite hangs when pg-boss has not looked its queue up yet: docs/platform-notes.md, "pg-boss: a
// send inside a transaction needs its queue known first"), and the handlers a worker runs.
export const QUEUES = [maintenanceQueue];

/** Webhook endpoints one worker process delivers to at once (one drain per endpoint at a time, across processes). */
const WEBHOOK_CONCURRENCY = 20;

/** The pg-boss queue webhook deliveries had before their own claim (docs/webhooks.md): its leftover jobs are dropped. */
const RETIRED_QUEUES = ['webhooks'];

export async function declareQueues(jobs: ProcessRuntime['jobs']): Promise<void> {
  await jobs.declare(...QUEUES);
  await jobs.retire(...RETIRED_QUEUES);
}

/**
 * Starts this process's workers (RUN_WORKERS=true, or `npm run worker`): the executions it runs
 * (its pool of EXECUTION_CONCURRENCY slots, with the sweeper that fails executions whose worker
 * stopped heart-beating), the handlers of every job queue, and the event relay (outbox →
 * webhook deliveries), the compactor of usage records and the schedule ticker. Returns the function that stops them, letting running executions finish.
 */
export async function startWorkers(runtime: ProcessRuntime): Promise<() => Promise<void>> {
  const { jobs } = runtime;
  const db = runtime.database.db;
  await jobs.work(maintenanceQueue, async (job) => {
    const result = await runMaintenance(db);
    log.info({ job: job.id, ...result }, 'maintenance done');
  });
  await jobs.schedule(maintenanceQueue, MAINTENANCE_CRON);
  const headroom = env.EXECUTION_HEADROOM < 1 ? new Headroom(env.EXECUTION_HEADROOM) : undefined;
  const pool = new ExecutionPool(db, runtime.bus, runtime.live, env.EXECUTION_CONCURRENCY, headroom);
  pool.start();
  runtime.executions = pool;
  const stopDeliveries = startDeliveries(db, runtime.bus, WEBHOOK_CONCURRENCY);
  const stopRelay = startRelay(db, runtime.bus);
  const stopCompactor = env.USAGE_ANALYTICS ? startCompactor(db, env.USAGE_COMPACT_SECONDS * 1000) : async () => {};
  const stopTicker = startScheduleTicker(db);
  return async () => {
    await stopTicker();
    await pool.stop(10_000);
    headroom?.close();
    await stopRelay();
    await stopDeliveries();
    await stopCompactor();
  };
}
