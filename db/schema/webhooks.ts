import { sql, type SQL } from 'drizzle-orm';
import { boolean, index, integer, json, pgTable, primaryKey, text, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, textEnum, ts } from './columns';
import { DELIVERY_STATUSES, DISABLED_REASONS } from './values';

export { DELIVERY_STATUSES, DISABLED_REASONS, type DeliveryStatus, type DisabledReason } from './values';

// Events and their webhook deliveries (docs/webhooks.md).
//
//   events             the outbox: one row per change, written in the change's transaction;
//                      `dispatched_at` is null until the relay has made its deliveries.
//   webhooks           the endpoints, with their signing secrets (the previous one signs too,
//                      until `previous_secret_expires_at`).
//   webhook_deliveries one row per (event, webhook): pending until a 2xx, failed after the last
//                      retry; `next_attempt_at` is when it is due.
//   webhook_attempts   every HTTP attempt of a delivery (the delivery log).

const eventEnvironment = environmentColumn('events');
const webhookEnvironment = environmentColumn('webhooks');
const deliveryEnvironment = environmentColumn('webhook_deliveries');

const deliveryStatus = textEnum('webhook_deliveries', 'status', DELIVERY_STATUSES);

const disabledReason = textEnum('webhooks', 'disabled_reason', DISABLED_REASONS);

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: eventEnvironment.column,
    type: text('type').notNull(),
    // The REST view of the resource (`data.object` of the payload); `json` keeps its key order.
    object: json('object').$type<Record<string, unknown>>().notNull(),
    // Set when the event is meant for one webhook only (a test event), else null.
    webhookId: text('webhook_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
    dispatchedAt: ts('dispatched_at'),
  },
  (t) => [
    eventEnvironment.check(t.environment),
    index('events_list_idx').on(t.workspaceId, t.environment, t.id),
    index('events_type_idx').on(t.workspaceId, t.environment, t.type, t.id),
    index('events_undispatched_idx')
      .on(t.id)
      .where(sql`${t.dispatchedAt} is null`),
  ],
);

/**
 * A webhook whose secrets are not sealed yet, or whose URL was stored before URLs were (no
 * `url_masked`: written by an older version), like `unsealedAgent` (agents.ts): index
 * `webhooks_unsealed_idx` (migration 0024).
 */
export const unsealedWebhook = (t: { secret: AnyPgColumn; previousSecret: AnyPgColumn; urlMasked: AnyPgColumn }): SQL =>
  sql`(not starts_with(${t.secret}, 'enc:') or not starts_with(${t.previousSecret}, 'enc:') or ${t.urlMasked} is null)`;

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: webhookEnvironment.column,
    // The endpoint: sealed (`enc:v1:…`, place `webhooks.url:<id>`) when it holds a credential (a
    // query, a token-like path segment: server/platform/net/masked-url.ts), else as given.
    url: text('url').notNull(),
    // What those who may not manage the webhook see: the URL with its credentials masked. Null
    // only on rows of an older version, until the next start fills it (and seals `url`).
    urlMasked: text('url_masked'),
    events: text('events').array().notNull(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: disabledReason.column,
    disabledAt: ts('disabled_at'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    // Start of the current run of failed attempts (null after a success): the "failing for days" rule.
    firstFailureAt: ts('first_failure_at'),
    // The drain that holds this endpoint (server/modules/webhooks/lanes.ts): a token of the process's,
    // and until when (renewed while it sends; once past, another process may take the endpoint).
    drainToken: text('drain_token'),
    drainUntil: ts('drain_until'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    webhookEnvironment.check(t.environment),
    disabledReason.check(t.disabledReason),
    index('webhooks_list_idx').on(t.workspaceId, t.environment, t.id),
    // The drains under way, by workspace (the claim counts them): a handful of rows.
    index('webhooks_draining_idx')
      .on(t.workspaceId)
      .where(sql`${t.drainUntil} is not null`),
    index('webhooks_unsealed_idx').on(t.id).where(unsealedWebhook(t)),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: deliveryEnvironment.column,
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    status: deliveryStatus.column.notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    lastAttemptAt: ts('last_attempt_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    deliveryEnvironment.check(t.environment),
    deliveryStatus.check(t.status),
    index('webhook_deliveries_list_idx').on(t.workspaceId, t.environment, t.webhookId, t.id),
    index('webhook_deliveries_event_idx').on(t.eventId),
    index('webhook_deliveries_due_idx')
      .on(t.webhookId, t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    at: ts('at').notNull(),
    // The HTTP status, or null when no answer came (timeout, refused, connection error).
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    // The first 1 KB of the answer's body (UTF-8, cut on a character boundary).
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);
