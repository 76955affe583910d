import type { Db } from '../../../db/client';
import { CHANNELS, type Bus } from '../../platform/notify';
import { log } from '../../platform/log';
import { drainWebhook } from './deliver';
import { claimEndpoints, LEASE_RENEW_MS, releaseLease, renewLeases, type Lease } from './lanes';
import { wakeDeliveries } from './wake';

// The webhook drains of one worker process (docs/webhooks.md, "Fair delivery"): `slots` endpoints
// at once, each taken by a lease (lanes.ts) and drained one delivery after another. It looks for
// endpoints to take when deliveries become due (NOTIFY `aas_jobs` 'webhooks'), when a drain ends,
// when the earliest retry it knows of comes due, and every POLL_MS as a floor; at most every
// MIN_INTERVAL_MS under a steady flow of signals. One statement renews all its leases.

const POLL_MS = 5_000;
const MIN_INTERVAL_MS = 25;
/** The longest a known retry waits for its timer (beyond, the poll floor finds it anyway). */
const MAX_TIMER_MS = 60_000;

interface Drain {
  lease: Lease;
  lost: boolean;
  done: Promise<void>;
}

export function startDeliveries(db: Db, bus: Bus, slots: number): () => Promise<void> {
  const drains = new Map<string, Drain>();
  let stopped = false;
  let wanted = true;
  let wake: (() => void) | null = null;
  let dueTimer: NodeJS.Timeout | undefined;
  const signal = () => {
    wanted = true;
    wake?.();
  };
  const armDue = (at: number | null) => {
    clearTimeout(dueTimer);
    if (at === null || stopped) return;
    dueTimer = setTimeout(signal, Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now()) + 5));
    dueTimer.unref();
  };

  const drain = (lease: Lease) => {
    const d: Drain = { lease, lost: false, done: Promise.resolve() };
    d.done = drainWebhook(db, lease, () => !d.lost && !stopped)
      .catch((err: unknown) => {
        // E.g. the database failing under it (a secret it cannot open is an attempt's failure,
        // recorded by the drain: deliver.ts): the endpoint keeps its lease until it runs out, so
        // it is tried again in LEASE_SECONDS, not at once and again and again.
        log.error({ err, webhook: lease.webhookId }, 'webhook drain failed');
        return 'failed' as const;
      })
      .then(async (ended) => {
        if (!d.lost && ended !== 'failed') await releaseLease(db, lease);
        // The endpoint, and a slot of its workspace, are free again: every process may look.
        await wakeDeliveries(db);
      })
      .catch((err: unknown) => log.error({ err, webhook: lease.webhookId }, 'could not give a webhook back'))
      .finally(() => {
        drains.delete(lease.webhookId);
        signal();
      });
    drains.set(lease.webhookId, d);
  };

  const offSignal = bus.subscribe(CHANNELS.work, (work) => work === 'webhooks' && signal());
  const offReconnect = bus.onReconnect(signal);
  const renewer = setInterval(() => {
    const held = [...drains.values()].filter((d) => !d.lost);
    renewLeases(
      db,
      held.map((d) => d.lease),
    ).then(
      (lost) => {
        for (const id of lost) {
          const d = drains.get(id);
          if (d) d.lost = true;
        }
        if (lost.length > 0) log.warn({ webhooks: lost }, 'webhook leases lost (taken over after they ran out)');
      },
      (err: unknown) => log.warn({ err }, 'could not renew webhook leases'),
    );
  }, LEASE_RENEW_MS);
  renewer.unref();

  const loop = (async () => {
    let last = 0;
    while (!stopped) {
      const free = slots - drains.size;
      if (wanted && free > 0) {
        const wait = last + MIN_INTERVAL_MS - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        wanted = false;
        last = Date.now();
        try {
          const { leases, nextDue } = await claimEndpoints(db, free);
          for (const lease of leases) drain(lease);
          // All the slots filled: more may be waiting.
          if (leases.length === free) wanted = true;
          armDue(nextDue);
        } catch (err) {
          if (!stopped) log.error({ err }, 'could not claim webhook endpoints');
          await new Promise((r) => setTimeout(r, 1_000));
          wanted = true;
        }
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

  return async () => {
    stopped = true;
    wake?.();
    offSignal();
    offReconnect();
    clearTimeout(dueTimer);
    clearInterval(renewer);
    await loop;
    await Promise.allSettled([...drains.values()].map((d) => d.done));
  };
}
