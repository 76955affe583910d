import type { Db } from '../../../db/client';
import { CHANNELS, notify } from '../../platform/notify';

// The signal that deliveries may be due (NOTIFY `aas_jobs` 'webhooks'): every process's
// dispatcher (dispatcher.ts) looks for endpoints to drain when it arrives. Sent inside the
// transaction that made the deliveries due, it is delivered at its commit. Nothing is lost
// when it is: the deliveries table is the queue, and dispatchers look at it every few seconds.

export function wakeDeliveries(db: Db): Promise<unknown> {
  return db.execute(notify(CHANNELS.work, 'webhooks'));
}
