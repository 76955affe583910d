import { executionQueue } from '../executions/queue';
import { runExecution } from '../executions/runner';
import { failLostExecutions, HEARTBEAT_MS } from '../executions/status';
import { log } from '../log';
import type { ProcessRuntime } from '../runtime';
import { MAINTENANCE_CRON, maintenanceQueue, runMaintenance } from './maintenance';

// Every queue of the service, declared by every process at start-up (a send inside a
// transaction needs its queue known first: FINDINGS.md), and the handlers a worker runs.
export const QUEUES = [maintenanceQueue, executionQueue];

/** Executions one worker process runs at once (they mostly wait on the model and tools). */
const EXECUTION_CONCURRENCY = 20;

export async function declareQueues(jobs: ProcessRuntime['jobs']): Promise<void> {
  await jobs.declare(...QUEUES);
}

/**
 * Starts this process's handlers for every queue (RUN_WORKERS=true, or `npm run worker`), and
 * the sweeper that fails executions whose worker stopped heart-beating (worker_lost). Returns
 * the function that stops the sweeper.
 */
export async function startWorkers(runtime: ProcessRuntime): Promise<() => void> {
  const { jobs } = runtime;
  const db = runtime.database.db;
  await jobs.work(maintenanceQueue, async (job) => {
    const result = await runMaintenance(db);
    log.info({ job: job.id, ...result }, 'maintenance done');
  });
  await jobs.schedule(maintenanceQueue, MAINTENANCE_CRON);
  jobs.consume(executionQueue, (job, settle) => runExecution(runtime, job.data.executionId, settle), { concurrency: EXECUTION_CONCURRENCY });

  const sweep = () =>
    failLostExecutions(db).then(
      (lost) => lost.length > 0 && log.warn({ executions: lost }, 'executions failed as worker_lost'),
      (err: unknown) => log.error({ err }, 'worker_lost sweep failed'),
    );
  void sweep();
  const sweeper = setInterval(sweep, HEARTBEAT_MS);
  sweeper.unref();
  return () => clearInterval(sweeper);
}
