import { audit, changesOf } from '../audit/record';
import { and, asc, eq, getTableColumns, inArray, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { webhookAttempts, webhookDeliveries, webhooks, type Environment } from '../../../db/schema';
import type { Actor } from '../actor';
import { ApiError, notFound } from '../../platform/errors';
import { emit } from '../events/emit';
import { EVENT_TYPES, TEST_EVENT_TYPE, type AnyEventType } from '../vocabulary/event-types';
import { getEvent, type EventView } from '../events/service';
import { isId, newId } from '../../platform/ids';
import { keysetList, type ListRow } from '../../platform/keyset';
import { assertUnderLimit } from '../../platform/resource-limit';
import { allowPrivateUrls, refusalHint } from '../../platform/net/private-urls';
import { checkUrl, UrlRefused } from '../../platform/net/url-guard';
import type { Page, PageParams } from '../../platform/pagination';
import { newToolSecret } from '../tools/http-tool';
import type { MemberRole } from '../../../db/schema/values';
import { opens, openUrl, readsWholeUrls, sealUrl, sealWebhookSecret, shownUrl, viewedUrl, webhookSecretPlace, webhookUrlPlace } from '../secrets/stored';
import { isSealed, UnreadableSecret } from '../../platform/sealed';
import { MAX_WEBHOOKS, type createWebhookInput, type deliverySchema, type updateWebhookInput, type webhookSchema } from './schemas';
import { failPending } from './deliver';
import { wakeDeliveries } from './wake';

// Webhooks (docs/webhooks.md): create, list, read, update, delete, rotate the secret, read the
// delivery log, send a test event, resend a delivery; in the caller's workspace and environment
// (another's is not found). The URL goes through the SSRF guard now and again at each delivery.

export type WebhookView = z.infer<typeof webhookSchema>;
export type DeliveryView = z.infer<typeof deliverySchema>;
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;
/** Who reads them: an Actor fits; its kind and role decide whether the URL is shown whole (`readsWholeUrls`). */
type Reader = Owner & { kind?: 'key' | 'user'; role?: MemberRole };
type WebhookRow = typeof webhooks.$inferSelect;

const invalid = (param: string, message: string) => new ApiError('invalid_parameter', message, { param });

/** A rotated-out secret keeps signing alongside the new one this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3600 * 1000;

/**
 * The webhook as the API shows it. `whole`: its URL whole (for whoever may manage it: the caller
 * decides) — else masked, as developers, viewers, events and the audit log see it (docs/security.md,
 * "Secrets at rest"); nothing is opened for a masked view.
 */
export function webhookView(row: Omit<WebhookRow, 'secret' | 'previousSecret'>, whole: boolean): WebhookView {
  return {
    id: row.id,
    url: whole ? viewedUrl(webhookUrlPlace(row.id), row.url, row.urlMasked) : shownUrl(row.url, row.urlMasked),
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const { secret: _s, previousSecret: _p, ...viewColumns } = getTableColumns(webhooks);
const webhookList = keysetList({ name: 'webhooks', prefix: 'whk', table: webhooks, columns: viewColumns });

// ---- checks ----

/** `["*"]`, or known event types (case as written, no repeats). */
function checkEvents(list: string[]): string[] {
  if (list.includes('*')) {
    if (list.length > 1) throw invalid('events', `'events' must be ["*"] alone, or a list of event types`);
    return ['*'];
  }
  const seen = new Set<string>();
  for (const [i, type] of list.entries()) {
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw invalid(`events.${i}`, `'events.${i}' is not an event type; use one of ${EVENT_TYPES.join(', ')}, or ["*"]`);
    }
    if (seen.has(type)) throw invalid(`events.${i}`, `'events.${i}' repeats '${type}'`);
    seen.add(type);
  }
  return list;
}

/** The SSRF guard, at create and update: https in live mode, no non-public address (unless allowed). */
async function checkWebhookUrl(url: string, environment: Environment): Promise<string> {
  try {
    await checkUrl(url, { allowPrivate: allowPrivateUrls(), requireHttps: environment === 'live' });
  } catch (err) {
    if (err instanceof UrlRefused) throw invalid('url', `'url' ${err.message}${refusalHint(err.reason)}`);
    throw err;
  }
  return url;
}

// ---- operations ----

const owned = (owner: Owner, id: string) => and(eq(webhooks.id, id), eq(webhooks.workspaceId, owner.workspaceId), eq(webhooks.environment, owner.environment));

async function findWebhook(db: Db, owner: Owner, id: string): Promise<WebhookRow | null> {
  if (!isId('whk', id)) return null;
  const [row] = await db.select().from(webhooks).where(owned(owner, id));
  return row ?? null;
}

async function mustFind(db: Db, owner: Owner, id: string): Promise<WebhookRow> {
  const row = await findWebhook(db, owner, id);
  if (!row) throw notFound('webhook', id);
  return row;
}

/** What a webhook's audit records show of it (never its secret). */
const WEBHOOK_AUDITED = ['url', 'events', 'description', 'enabled', 'disabledReason'] as const;

export async function createWebhook(db: Db, actor: Owner, input: z.infer<typeof createWebhookInput>, now = new Date()) {
  const events = checkEvents(input.events);
  const given = await checkWebhookUrl(input.url, actor.environment);
  // The secret is shown in this answer only, and stored sealed, as the URL is when it holds a
  // credential (docs/security.md, "Secrets at rest").
  const id = newId('whk');
  const secret = newToolSecret();
  const url = sealUrl(webhookUrlPlace(id), given);
  return db.transaction(async (tx) => {
    await assertUnderLimit(tx, webhooks, actor, { name: 'webhooks', max: MAX_WEBHOOKS, code: 'webhook_limit_reached' });
    const [row] = await tx
      .insert(webhooks)
      .values({
        id,
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        url: url.url,
        urlMasked: url.masked,
        events,
        description: input.description,
        enabled: input.enabled,
        disabledReason: input.enabled ? null : 'manual',
        disabledAt: input.enabled ? null : now,
        secret: sealWebhookSecret(id, secret),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    // The audit record shows the URL masked; the caller, who wrote it, gets it whole.
    const view = webhookView(row!, false);
    await audit(tx, actor, { action: 'webhook.created', target: { type: 'webhook', id }, changes: changesOf(null, view, WEBHOOK_AUDITED) });
    return { ...view, url: given, secret };
  });
}

const wholeFor = (actor: Reader) => readsWholeUrls(actor, 'webhooks:manage');

export async function listWebhooks(db: Db, actor: Reader, params: PageParams): Promise<Page<WebhookView>> {
  const page = await webhookList.page(db, actor, params);
  const whole = wholeFor(actor);
  return { ...page, data: page.data.map((row) => webhookView(row, whole)) };
}

export async function getWebhook(db: Db, actor: Reader, id: string): Promise<WebhookView> {
  return webhookView(await mustFind(db, actor, id), wholeFor(actor));
}

/**
 * Whether `given` is the webhook's stored URL: the masked form it was shown (an event, a
 * developer's page) or the same URL whole. Then the stored (sealed) value stays as it is: nothing
 * changes, nothing needs opening in the first case.
 */
function sameUrl(row: WebhookRow, given: string): boolean {
  if (!isSealed(row.url)) return given === row.url;
  if (given === shownUrl(row.url, row.urlMasked)) return true;
  try {
    return openUrl(webhookUrlPlace(row.id), row.url) === given;
  } catch (err) {
    if (err instanceof UnreadableSecret) return false;
    throw err;
  }
}

export async function updateWebhook(db: Db, actor: Owner | Actor, id: string, input: Omit<z.infer<typeof updateWebhookInput>, 'id'>, now = new Date()): Promise<WebhookView> {
  const changes: Partial<typeof webhooks.$inferInsert> = {};
  if (input.events !== undefined) changes.events = checkEvents(input.events);
  if (input.url !== undefined) {
    // The URL sent back as it was read (masked or whole) keeps the stored one; another is checked
    // and sealed (for a webhook that does not exist, checked: input before lookup, docs/api.md).
    const current = await findWebhook(db, actor, id);
    if (!current || !sameUrl(current, input.url)) {
      const stored = sealUrl(webhookUrlPlace(id), await checkWebhookUrl(input.url, actor.environment));
      Object.assign(changes, { url: stored.url, urlMasked: stored.masked });
    }
  }
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled === true) Object.assign(changes, { enabled: true, disabledReason: null, disabledAt: null, firstFailureAt: null });
  if (input.enabled === false) Object.assign(changes, { enabled: false, disabledReason: 'manual', disabledAt: now });
  if (Object.keys(changes).length === 0) return getWebhook(db, actor, id);
  if (!isId('whk', id)) throw notFound('webhook', id);
  // Disabling an already disabled webhook keeps the reason it was disabled for.
  const set = input.enabled === false ? { ...changes, disabledReason: sql`coalesce(${webhooks.disabledReason}, 'manual')`, disabledAt: sql`coalesce(${webhooks.disabledAt}, ${now.toISOString()}::timestamptz)` } : changes;
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(webhooks).where(owned(actor, id)).for('update');
    if (!before) throw notFound('webhook', id);
    const [row] = await tx
      .update(webhooks)
      .set({ ...set, updatedAt: now })
      .where(owned(actor, id))
      .returning();
    if (!row) throw notFound('webhook', id);
    // Disabled: nothing of it stays pending (docs/webhooks.md, "Retries and disabling").
    if (!row.enabled) await failPending(tx, row.id, 'The webhook is disabled');
    const [was, view] = [webhookView(before, false), webhookView(row, false)];
    const changed = changesOf(was, view, WEBHOOK_AUDITED);
    // A credential changed under the mask (a kept URL keeps its sealed value): recorded, masked.
    if (!changed.url && before.url !== row.url) changed.url = [was.url, view.url];
    await audit(tx, actor, { action: 'webhook.updated', target: { type: 'webhook', id }, changes: changed });
    return webhookView(row, wholeFor(actor));
  });
}

export async function deleteWebhook(db: Db, actor: Owner, id: string): Promise<{ id: string; deleted: true }> {
  if (!isId('whk', id)) throw notFound('webhook', id);
  return db.transaction(async (tx) => {
    const [row] = await tx.delete(webhooks).where(owned(actor, id)).returning({ id: webhooks.id, url: webhooks.url, urlMasked: webhooks.urlMasked });
    if (!row) throw notFound('webhook', id);
    await audit(tx, actor, { action: 'webhook.deleted', target: { type: 'webhook', id }, changes: { url: [shownUrl(row.url, row.urlMasked), null] } });
    return { id: row.id, deleted: true as const };
  });
}

/**
 * A new secret; the current one keeps signing alongside it for 24 h (an older previous one stops).
 * The sealed current value moves to `previous_secret` as it is (both share the row's place).
 */
export async function rotateSecret(db: Db, actor: Owner | Actor, id: string, now = new Date()) {
  if (!isId('whk', id)) throw notFound('webhook', id);
  const secret = newToolSecret();
  return db.transaction(async (tx) => {
    const [current] = await tx.select({ secret: webhooks.secret }).from(webhooks).where(owned(actor, id)).for('update');
    if (!current) throw notFound('webhook', id);
    // A secret this server cannot open (its key is no longer held) is not kept as the previous
    // one: it would fail every delivery for 24 h. It stops at once (docs/security.md, "A wrong key").
    const keep = opens(webhookSecretPlace(id), current.secret);
    const expires = keep ? new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS) : now;
    const [row] = await tx
      .update(webhooks)
      .set({ previousSecret: keep ? sql`${webhooks.secret}` : null, previousSecretExpiresAt: keep ? expires : null, secret: sealWebhookSecret(id, secret), updatedAt: now })
      .where(owned(actor, id))
      .returning();
    if (!row) throw notFound('webhook', id);
    await audit(tx, actor, { action: 'webhook.secret_rotated', target: { type: 'webhook', id }, changes: { secret: [null, 'rotated'] } });
    return { ...webhookView(row, wholeFor(actor)), secret, previousSecretExpiresAt: expires.toISOString() };
  });
}

// ---- deliveries ----

const deliveryColumns = getTableColumns(webhookDeliveries);
const deliveryList = keysetList({
  name: 'deliveries',
  prefix: 'dlv',
  table: webhookDeliveries,
  columns: deliveryColumns,
  filters: { webhookId: webhookDeliveries.webhookId, status: webhookDeliveries.status },
});
type DeliveryRow = ListRow<typeof deliveryColumns>;
type AttemptRow = typeof webhookAttempts.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function deliveryView(row: DeliveryRow, attempts: AttemptRow[]): DeliveryView {
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventId: row.eventId,
    eventType: row.eventType as AnyEventType,
    status: row.status,
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      error: a.error,
      responseExcerpt: a.responseExcerpt,
    })),
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    completedAt: iso(row.completedAt),
  };
}

/** A delivery shows at most its last this many attempts (resends could grow the log without end). */
export const MAX_ATTEMPTS_SHOWN = 25;

/** The deliveries' views, each with its last attempts (one query for the attempts of all of them). */
export async function deliveryViews(db: Db, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const last = db
    .select({ ...getTableColumns(webhookAttempts), rn: sql<number>`row_number() over (partition by ${webhookAttempts.deliveryId} order by ${webhookAttempts.attempt} desc)`.as('rn') })
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, ids))
    .as('last');
  const attempts = await db
    .select({ deliveryId: last.deliveryId, attempt: last.attempt, at: last.at, statusCode: last.statusCode, latencyMs: last.latencyMs, error: last.error, responseExcerpt: last.responseExcerpt })
    .from(last)
    .where(lte(last.rn, MAX_ATTEMPTS_SHOWN))
    .orderBy(asc(last.deliveryId), asc(last.attempt));
  const by = new Map<string, AttemptRow[]>();
  for (const a of attempts) by.set(a.deliveryId, [...(by.get(a.deliveryId) ?? []), a]);
  return rows.map((row) => deliveryView(row, by.get(row.id) ?? []));
}

export async function listDeliveries(db: Db, actor: Owner, id: string, params: PageParams & { status?: DeliveryRow['status'] }): Promise<Page<DeliveryView>> {
  await mustFind(db, actor, id);
  const page = await deliveryList.page(db, actor, { ...params, webhookId: id });
  return { ...page, data: await deliveryViews(db, page.data) };
}

/** The deliveries of one event (the dashboard's events page). */
export async function eventDeliveries(db: Db, actor: Owner, eventId: string): Promise<DeliveryView[]> {
  await getEvent(db, actor, eventId);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.workspaceId, actor.workspaceId), eq(webhookDeliveries.environment, actor.environment)))
    .orderBy(asc(webhookDeliveries.id));
  return deliveryViews(db, rows);
}

function mustBeEnabled(row: WebhookRow): void {
  if (!row.enabled) throw new ApiError('webhook_disabled', 'This webhook is disabled; enable it before sending to it');
}

/** Sends a `webhook.test` event to this webhook only (whatever it subscribes to). */
export async function sendTestEvent(db: Db, actor: Owner, id: string): Promise<EventView> {
  const row = await mustFind(db, actor, id);
  mustBeEnabled(row);
  const eventId = await db.transaction(async (tx) => {
    const [made] = await Promise.all([
      emit(tx, actor, TEST_EVENT_TYPE, webhookView(row, false), { webhookId: row.id }),
      audit(tx, actor, { action: 'webhook.test_sent', target: { type: 'webhook', id: row.id } }),
    ]);
    return made;
  });
  return getEvent(db, actor, eventId);
}

/** Sends a delivery again now (same event, same `webhook-id`); a failed one becomes pending again. */
export async function resendDelivery(db: Db, actor: Owner, id: string, deliveryId: string): Promise<DeliveryView> {
  const hook = await mustFind(db, actor, id);
  mustBeEnabled(hook);
  if (!isId('dlv', deliveryId)) throw notFound('delivery', deliveryId);
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: sql`now()`, completedAt: null })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, hook.id)))
      .returning();
    if (!updated) throw new ApiError('resource_not_found', `No such delivery: '${deliveryId}'`, { param: 'deliveryId' });
    await Promise.all([
      wakeDeliveries(tx),
      audit(tx, actor, { action: 'webhook_delivery.resent', target: { type: 'webhook_delivery', id: deliveryId } }),
    ]);
    return updated;
  });
  return (await deliveryViews(db, [row]))[0]!;
}
