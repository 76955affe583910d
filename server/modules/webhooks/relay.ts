import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../../db/client';
import { events, webhookDeliveries, webhooks } from '../../../db/schema';
import { CHANNELS, type Bus } from '../../platform/notify';
import { newId } from '../../platform/ids';
import { log } from '../../platform/log';
import { wakeDeliveries } from './wake';
import { advisoryXactLock } from '../../../db/advisory';

// The outbox relay: events not dispatched yet become one delivery per matching enabled webhook
// of their workspace and environment (a test event: its one webhook), due now, in the same
// transaction that marks the events dispatched, which also wakes the dispatchers (dispatcher.ts)
// at its commit. A crash before the commit leaves the events to the next run; after it, the
// deliveries exist and the dispatchers find them. Workers run
// it when an event is committed (NOTIFY `aas_events`), and every few seconds as a floor. Runs
// in several processes take turns (an advisory lock), so events are dispatched in order.

const BATCH = 500;
const POLL_MS = 3_000;
/**
 * Under a steady flow of events the relay runs at most this often, each run taking what came
 * meanwhile in one transaction (at 300 events a second: ~15 events a run instead of one or two),
 * instead of once per committed event. Idle, it runs at once.
 */
const MIN_INTERVAL_MS = 50;
/** Rows per INSERT (10 parameters each, under PostgreSQL's 65,535). */
const INSERT_CHUNK = 1_000;
const RELAY_LOCK = 7_240_501;

/** A timestamp as microseconds since the epoch (exact, unlike a JS Date). */
const micros = (column: AnyPgColumn) => sql<string>`(extract(epoch from ${column}) * 1000000)::bigint::text`.mapWith((v: string) => BigInt(v));

/** Dispatches up to BATCH events; returns how many it took. */
export async function relayOnce(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    await advisoryXactLock(tx, sql`${RELAY_LOCK}`);
    const batch = await tx
      .select({ id: events.id, workspaceId: events.workspaceId, environment: events.environment, type: events.type, webhookId: events.webhookId, at: micros(events.createdAt) })
      .from(events)
      .where(isNull(events.dispatchedAt))
      .orderBy(asc(events.id))
      .limit(BATCH);
    if (batch.length === 0) return 0;
    const workspaceIds = [...new Set(batch.map((e) => e.workspaceId))];
    const hooks = await tx
      .select({ id: webhooks.id, workspaceId: webhooks.workspaceId, environment: webhooks.environment, events: webhooks.events, at: micros(webhooks.createdAt) })
      .from(webhooks)
      .where(and(inArray(webhooks.workspaceId, workspaceIds), eq(webhooks.enabled, true)));
    const deliveries: (typeof webhookDeliveries.$inferInsert)[] = [];
    for (const e of batch) {
      for (const h of hooks) {
        if (h.workspaceId !== e.workspaceId || h.environment !== e.environment) continue;
        // A webhook gets the events that happened after it was created (a lagging relay must not
        // hand it older ones); a test event is for its own webhook only.
        const wanted = e.webhookId ? h.id === e.webhookId : (h.events.includes('*') || h.events.includes(e.type)) && h.at <= e.at;
        if (!wanted) continue;
        deliveries.push({
          id: newId('dlv'),
          workspaceId: e.workspaceId,
          environment: e.environment,
          webhookId: h.id,
          eventId: e.id,
          eventType: e.type,
          status: 'pending',
          nextAttemptAt: sql`now()` as unknown as Date,
        });
      }
    }
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) writes.push(tx.insert(webhookDeliveries).values(deliveries.slice(i, i + INSERT_CHUNK)).execute());
    writes.push(
      tx
        .update(events)
        .set({ dispatchedAt: sql`now()` })
        .where(inArray(events.id, batch.map((e) => e.id)))
        .execute(),
    );
    if (deliveries.length > 0) writes.push(wakeDeliveries(tx));
    await Promise.all(writes);
    return batch.length;
  });
}

/** Runs the relay in this process (workers); returns the function that stops it. */
export function startRelay(db: Db, bus: Bus): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let lastRun = 0;
  let delayed: NodeJS.Timeout | null = null;
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    const wait = lastRun + MIN_INTERVAL_MS - Date.now();
    if (wait > 0) {
      delayed ??= setTimeout(() => {
        delayed = null;
        run();
      }, wait);
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          lastRun = Date.now();
          while (!stopped && (await relayOnce(db)) === BATCH);
          if (again && !stopped) await new Promise((r) => setTimeout(r, Math.max(0, lastRun + MIN_INTERVAL_MS - Date.now())));
        } while (again && !stopped);
      } catch (err) {
        log.error({ err }, 'event relay failed');
      } finally {
        running = null;
      }
    })();
  };
  const offEvents = bus.subscribe(CHANNELS.outbox, run);
  const offReconnect = bus.onReconnect(run);
  const timer = setInterval(run, POLL_MS);
  timer.unref();
  run();
  return async () => {
    stopped = true;
    clearInterval(timer);
    if (delayed) clearTimeout(delayed);
    offEvents();
    offReconnect();
    await running;
  };
}
