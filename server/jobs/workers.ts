import { executionQueue } from '../executions/queue';
import { runExecution } from '../executions/runner';
import { failLostExecutions, HEARTBEAT_MS } from '../executions/status';
import { env } from '../env.js';
import { log } from '../log';
import type { ProcessRuntime } from '../runtime';
import { drainWebhook } from '../webhooks/deliver';
import { webhookQueue } from '../webhooks/queue';
import { startRelay } from '../webhooks/relay';
import { MAINTENANCE_CRON, maintenanceQueue, runMaintenance } from './maintenance';

// Every queue of the service, declared by every process at start-up (a send inside a
// transaction needs its queue known first: FINDINGS.md), and the handlers a worker runs.
export const QUEUES = [maintenanceQueue, executionQueue, webhookQueue];

/** Webhook endpoints one worker process delivers to at once (one job per endpoint at a time, across processes). */
const WEBHOOK_CONCURRENCY = 20;

export async function declareQueues(jobs: ProcessRuntime['jobs']): Promise<void> {
  await jobs.declare(...QUEUES);
}

/**
 * Starts this process's handlers for every queue (RUN_WORKERS=true, or `npm run worker`), the
 * event relay (outbox → webhook deliveries), and the sweeper that fails executions whose worker
 * stopped heart-beating (worker_lost). Returns the function that stops the relay and the sweeper.
 */
export async function startWorkers(runtime: ProcessRuntime): Promise<() => Promise<void>> {
  const { jobs } = runtime;
  const db = runtime.database.db;
  await jobs.work(maintenanceQueue, async (job) => {
    const result = await runMaintenance(db, jobs);
    log.info({ job: job.id, ...result }, 'maintenance done');
  });
  await jobs.schedule(maintenanceQueue, MAINTENANCE_CRON);
  jobs.consume(executionQueue, (job, settle) => runExecution(runtime, job.data.executionId, settle), { concurrency: env.EXECUTION_CONCURRENCY });
  jobs.consume(webhookQueue, (job) => drainWebhook(db, jobs, job.data.webhookId), { concurrency: WEBHOOK_CONCURRENCY, groupConcurrency: 1 });
  const stopRelay = startRelay(db, runtime.bus, jobs);

  const sweep = () =>
    failLostExecutions(db).then(
      (lost) => lost.length > 0 && log.warn({ executions: lost }, 'executions failed as worker_lost'),
      (err: unknown) => log.error({ err }, 'worker_lost sweep failed'),
    );
  void sweep();
  const sweeper = setInterval(sweep, HEARTBEAT_MS);
  sweeper.unref();
  return async () => {
    clearInterval(sweeper);
    await stopRelay();
  };
}
