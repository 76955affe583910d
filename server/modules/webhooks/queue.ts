import type { Db } from '../../../db/client';
import { queue, type Jobs } from '../../platform/jobs';

// The webhook deliveries queue. A job means "deliver what is due for this webhook" (deliver.ts):
// the deliveries table holds the truth, so a job that runs twice, late or for nothing does no
// harm. Jobs are grouped by webhook, and the consumer runs one job per group at a time across
// all processes: each endpoint gets its deliveries one after another, in order, while other
// endpoints are served in parallel. pg-boss hands out again the job of a worker that died.
export const webhookQueue = queue<{ webhookId: string }>('webhooks', {
  retryLimit: 10,
  retryDelay: 5,
  heartbeatSeconds: 10,
  // Deliveries of one drain are bounded (deliver.ts), each by the attempt timeout.
  expireInSeconds: 900,
});

/** Asks for a drain of the webhook's due deliveries (now, or at `at`); with `tx`, only if it commits. */
export function wakeWebhook(jobs: Jobs, webhookId: string, opts: { tx?: Db; at?: Date } = {}): Promise<unknown> {
  return jobs.send(webhookQueue, { webhookId }, { group: webhookId, ...(opts.tx ? { tx: opts.tx } : {}), ...(opts.at ? { startAfter: opts.at } : {}) });
}
