import { rootSpanId, traceparent } from '../vocabulary/trace-ids';
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { events, webhookAttempts, webhookDeliveries, webhooks, type DisabledReason } from '../../../db/schema';
import { env } from '../../platform/env.js';
import { allowPrivateUrls } from '../../platform/net/private-urls';
import { log } from '../../platform/log';
import { UnreadableSecret } from '../../platform/sealed';
import { openUrl, webhookSigningSecrets, webhookUrlPlace } from '../secrets/stored';
import type { Lease } from './lanes';
import { sendWebhook, type AttemptResult } from './send';

// Delivering what is due for one webhook, by the drain that holds its lease (lanes.ts: one at a
// time per webhook, across processes). Due deliveries go out in the order of their events; a
// failed one gets its next attempt on the retry schedule and the later ones go on (order "as far
// as retries allow"). Each attempt is recorded in one transaction with its consequences: the
// delivery's state and next attempt, the endpoint's failure streak, and disabling it (410, or
// failing for days). The HTTP call itself runs outside any transaction.

/** Delays before each retry, in seconds (WEBHOOK_RETRY_SCHEDULE): 1 + its length attempts in all. */
export const RETRY_SCHEDULE: readonly number[] = env.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number);
const BATCH = 20;
/**
 * A drain gives its endpoint back after this many deliveries or this long, so the next claim
 * can serve whoever waits, fewest drains first: a slot's turnover is at most this plus one
 * attempt (WEBHOOK_TIMEOUT_SECONDS).
 */
export const MAX_PER_DRAIN = 100;
export const MAX_DRAIN_MS = 20_000;

/**
 * Seconds until the retry after failed attempt `n` (1-based): the schedule's entry, or the
 * receiver's `Retry-After` kept within [entry, 2 × entry] (Svix's rule). Null: no retry left.
 */
export function retryDelay(n: number, retryAfterSeconds?: number): number | null {
  const base = RETRY_SCHEDULE[n - 1];
  if (base === undefined) return null;
  if (retryAfterSeconds === undefined) return base;
  return Math.min(Math.max(retryAfterSeconds, base), 2 * base);
}

/** The Standard Webhooks body of an event: exactly what `GET /v1/events/:id` answers. */
/** The trace an event's delivery joins: an execution's event names its run's root span (docs/traces.md); other events none. */
export function eventTraceparent(type: string, object: unknown): string | null {
  if (!type.startsWith('execution.') || typeof object !== 'object' || object === null) return null;
  const { id, traceId } = object as { id?: unknown; traceId?: unknown };
  return typeof id === 'string' && typeof traceId === 'string' && /^[0-9a-f]{32}$/.test(traceId) ? traceparent(traceId, rootSpanId(id)) : null;
}

export function payload(e: { id: string; type: string; createdAt: Date; environment: string; object: unknown }): string {
  return JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt.toISOString(), environment: e.environment, data: { object: e.object } });
}

/**
 * Sends the held webhook's due deliveries. `held` says whether the lease is still ours (a process
 * that stalled past it may have lost the endpoint to another). Ends `done` when nothing is due
 * (or the webhook is gone, disabled, or the lease lost), `handover` when it stopped at its
 * share (MAX_PER_DRAIN, MAX_DRAIN_MS) with deliveries still due.
 */
export async function drainWebhook(db: Db, lease: Lease, held: () => boolean = () => true): Promise<'done' | 'handover'> {
  let sent = 0;
  const handOverAt = Date.now() + MAX_DRAIN_MS;
  for (;;) {
    const [hook] = await db.select().from(webhooks).where(eq(webhooks.id, lease.webhookId));
    if (!hook) return 'done'; // deleted: its deliveries went with it
    if (!hook.enabled) {
      await failPending(db, hook.id, 'The webhook is disabled');
      return 'done';
    }
    const due = await db
      .select({
        id: webhookDeliveries.id,
        attempts: webhookDeliveries.attempts,
        eventId: events.id,
        type: events.type,
        createdAt: events.createdAt,
        environment: events.environment,
        object: events.object,
      })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(and(eq(webhookDeliveries.webhookId, hook.id), eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, sql`now()`)))
      .orderBy(asc(webhookDeliveries.eventId))
      .limit(BATCH);
    if (due.length === 0) return 'done';
    // Opened here only (sealed at rest), once per batch. One this server cannot open (its key is
    // not in SECRETS_KEY) is logged, and each due delivery records a failed attempt saying so,
    // retried on the schedule like any other (docs/security.md, "A wrong key"): nothing is sent,
    // and the endpoint's failure streak is not ours to lengthen.
    const target = openTarget(hook);
    for (const d of due) {
      if (!held()) return 'done';
      const result =
        'unreadable' in target
          ? notOpened(target.unreadable)
          : await sendWebhook(target.url, d.eventId, payload({ ...d, id: d.eventId }), {
              secrets: target.secrets,
              allowPrivate: allowPrivateUrls(),
              requireHttps: hook.environment === 'live',
              timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS * 1000,
              traceparent: eventTraceparent(d.type, d.object),
            });
      const disabled = await record(db, hook.id, d.id, d.attempts + 1, result, !('unreadable' in target));
      if (disabled) {
        log.warn({ webhook: hook.id, reason: disabled }, 'webhook disabled');
        return 'done';
      }
      if (++sent >= MAX_PER_DRAIN || Date.now() >= handOverAt) return 'handover';
    }
  }
}

/** Where and how a delivery is sent: the whole URL and the signing secrets, opened; or what could not be. */
function openTarget(hook: typeof webhooks.$inferSelect): { url: string; secrets: string[] } | { unreadable: UnreadableSecret } {
  try {
    return { url: openUrl(webhookUrlPlace(hook.id), hook.url), secrets: webhookSigningSecrets(hook) };
  } catch (err) {
    if (err instanceof UnreadableSecret) return { unreadable: err };
    throw err;
  }
}

/** The attempt of a delivery whose URL or secret this server cannot open: nothing was sent. */
function notOpened(err: UnreadableSecret): AttemptResult {
  const what = err.place.startsWith('webhooks.url:') ? 'URL' : 'signing secret';
  return { ok: false, statusCode: null, latencyMs: 0, excerpt: null, error: `Not sent: the webhook's ${what} cannot be opened by this server: ${err.reason}` };
}

/**
 * Records attempt `n` of a delivery and what follows from it, in one transaction. Returns the
 * reason the webhook was disabled by it, if it was. A delivery no longer pending at attempt
 * n − 1 (another drain got there first) is left as it is. `endpoints`: whether the outcome is the
 * endpoint's (false when we could not send: its failure streak, and disabling, are left alone).
 */
async function record(db: Db, webhookId: string, deliveryId: string, n: number, r: AttemptResult, endpoints = true): Promise<DisabledReason | null> {
  return db.transaction(async (tx) => {
    const delay = r.ok ? null : retryDelay(n, r.retryAfterSeconds);
    const retryAt = delay === null ? null : new Date(Date.now() + delay * 1000);
    const final = r.ok || retryAt === null;
    // The webhook's row first, then its delivery's, in the order a delete takes them (the webhook,
    // then the cascade to its deliveries). The other order deadlocked against a delete, and
    // PostgreSQL failed one of the two: the delete, answered 500. Pipelined with the update: one
    // round trip. A webhook deleted meanwhile leaves nothing to update.
    const locked = tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, webhookId)).for('no key update').execute();
    const changed = tx
      .update(webhookDeliveries)
      .set({
        status: r.ok ? 'succeeded' : final ? 'failed' : 'pending',
        attempts: n,
        nextAttemptAt: retryAt,
        lastStatusCode: r.statusCode,
        lastError: r.error,
        lastAttemptAt: sql`now()`,
        completedAt: final ? sql`now()` : null,
      })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, n - 1)))
      .returning({ id: webhookDeliveries.id })
      .execute();
    const [, [updated]] = await Promise.all([locked, changed]);
    if (!updated) return null;
    const writes: Promise<unknown>[] = [
      tx
        .insert(webhookAttempts)
        .values({ deliveryId, attempt: n, at: new Date(Date.now() - r.latencyMs), statusCode: r.statusCode, latencyMs: r.latencyMs, error: r.error, responseExcerpt: r.excerpt })
        .execute(),
    ];
    if (r.ok || !endpoints) {
      // A success ends the endpoint's failure streak.
      if (r.ok) writes.push(tx.update(webhooks).set({ firstFailureAt: null }).where(and(eq(webhooks.id, webhookId), sql`${webhooks.firstFailureAt} is not null`)).execute());
      await Promise.all(writes);
      return null;
    }
    const streak = tx
      .update(webhooks)
      .set({ firstFailureAt: sql`coalesce(${webhooks.firstFailureAt}, now())` })
      .where(eq(webhooks.id, webhookId))
      .returning({ since: webhooks.firstFailureAt })
      .execute();
    writes.push(streak);
    await Promise.all(writes);
    const [{ since } = { since: null }] = await streak;
    const failingFor = since ? (Date.now() - since.getTime()) / 1000 : 0;
    const reason: DisabledReason | null = r.statusCode === 410 ? 'endpoint_gone' : failingFor >= env.WEBHOOK_DISABLE_AFTER_SECONDS ? 'failing' : null;
    if (!reason) return null;
    await tx
      .update(webhooks)
      .set({ enabled: false, disabledReason: reason, disabledAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(webhooks.id, webhookId));
    await failPending(tx, webhookId, reason === 'endpoint_gone' ? 'The endpoint answered 410 Gone; the webhook was disabled' : 'The endpoint kept failing; the webhook was disabled');
    return reason;
  });
}

/** A disabled webhook's pending deliveries fail (a resend after enabling it sends one again). */
export async function failPending(db: Db, webhookId: string, why: string): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, completedAt: sql`now()`, lastError: sql`coalesce(${webhookDeliveries.lastError}, ${why})` })
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'pending')));
}
