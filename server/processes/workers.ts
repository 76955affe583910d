import { openConnection } from '../../db/client';
import { ExecutionPool } from '../modules/executions/pool';
import { env } from '../platform/env.js';
import { Headroom } from '../platform/headroom';
import { log } from '../platform/log';
import type { ProcessRuntime } from '../modules/runtime';
import { startDeliveries } from '../modules/webhooks/dispatcher';
import { startCompactor } from '../modules/usage/compactor';
import { startRelay } from '../modules/webhooks/relay';
import { startScheduleTicker } from '../modules/schedules/ticker';
import { startBudgetAlerts } from '../modules/budgets/alerts';
import { startUsageSpikes } from '../modules/keys/usage-spike';
import { startEvals } from '../modules/evals/loop';
import { startLoops, type LoopDef } from './loops';
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
  const loops = await startLoops(workerLoops(runtime));
  log.debug({ loops: loops.names }, 'background loops started');
  return loops.stop;
}

/**
 * A worker's loops, in the order they start (they stop in reverse): each after the loops it
 * feeds — the deliveries before the relay that makes them, both and the usage compactor before
 * the executions whose runs write their events and records, the schedule ticker, which starts
 * runs, last (so it stops first).
 */
export function workerLoops(runtime: ProcessRuntime): LoopDef[] {
  const { jobs, bus, live } = runtime;
  const db = runtime.database.db;
  return [
    {
      name: 'maintenance jobs',
      start: async () => {
        await jobs.work(maintenanceQueue, async (job) => {
          const result = await runMaintenance(db);
          log.info({ job: job.id, ...result }, 'maintenance done');
        });
        await jobs.schedule(maintenanceQueue, MAINTENANCE_CRON);
        // pg-boss's workers stop with the job queue itself (closeRuntime).
        return async () => {};
      },
    },
    { name: 'webhook deliveries', start: () => startDeliveries(db, bus, WEBHOOK_CONCURRENCY) },
    { name: 'webhook relay', start: () => startRelay(db, bus) },
    { name: 'usage compactor', start: () => (env.USAGE_ANALYTICS ? startCompactor(db, env.USAGE_COMPACT_SECONDS * 1000) : async () => {}) },
    {
      // The runs of this process, their heartbeat and the worker_lost sweeper; stopping lets running ones finish (10 s).
      name: 'executions',
      start: () => {
        // Headroom leaves a process's loop to the requests it serves: a worker process serves none,
        // and holding its claims back there only kept runs queued (docs/concurrency.md, "Headroom").
        const headroom = runtime.requests && env.EXECUTION_HEADROOM < 1 ? new Headroom(env.EXECUTION_HEADROOM) : undefined;
        const claims = openConnection(runtime.database, 'claims');
        const pool = new ExecutionPool(db, bus, live, env.EXECUTION_CONCURRENCY, headroom, claims?.db);
        pool.start();
        runtime.executions = pool;
        return async () => {
          await pool.stop(10_000);
          headroom?.close();
          await claims?.close();
        };
      },
    },
    { name: 'budget alerts', start: () => startBudgetAlerts(db, bus) },
    // Experiments and online scoring (docs/evals.md): after the executions, whose runs they start.
    { name: 'evals', start: () => startEvals(db, bus) },
    { name: 'key usage spikes', start: () => (env.USAGE_ANALYTICS ? startUsageSpikes(db) : async () => {}) },
    { name: 'schedule ticker', start: () => startScheduleTicker(db) },
  ];
}
