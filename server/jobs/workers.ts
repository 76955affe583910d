import type { Db } from '../../db/client';
import { log } from '../log';
import type { Jobs } from './index';
import { MAINTENANCE_CRON, maintenanceQueue, runMaintenance } from './maintenance';

// Every queue of the service, declared by every process at start-up (a send inside a
// transaction needs its queue known first: FINDINGS.md), and the handlers a worker runs.
export const QUEUES = [maintenanceQueue];

export async function declareQueues(jobs: Jobs): Promise<void> {
  await jobs.declare(...QUEUES);
}

/** Starts this process's handlers for every queue (RUN_WORKERS=true, or `npm run worker`). */
export async function startWorkers(jobs: Jobs, db: Db): Promise<void> {
  await jobs.work(maintenanceQueue, async (job) => {
    const result = await runMaintenance(db);
    log.info({ job: job.id, ...result }, 'maintenance done');
  });
  await jobs.schedule(maintenanceQueue, MAINTENANCE_CRON);
}
