import { sql } from 'drizzle-orm';
import { date, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, ts } from './columns';

const environment = environmentColumn('api_keys');

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: environment.column,
    name: text('name').notNull(),
    // First 16 characters of the key, for humans to recognise it. Never enough to use it.
    prefix: text('prefix').notNull(),
    // Hex SHA-256 of the whole key: the only form of the secret we keep.
    hash: text('hash').notNull().unique('api_keys_hash_key'),
    scopes: text('scopes').array().notNull(),
    expiresAt: ts('expires_at'),
    lastUsedAt: ts('last_used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    revokedAt: ts('revoked_at'),
    // Who made it: a user in the dashboard or CLI, or another key over the API.
    createdByUserId: text('created_by_user_id'),
    createdByKeyId: text('created_by_key_id'),
  },
  (t) => [
    environment.check(t.environment),
    // Keyset pagination of the active keys of one workspace and environment, newest first.
    index('api_keys_list_idx')
      .on(t.workspaceId, t.environment, t.id)
      .where(sql`${t.revokedAt} is null`),
  ],
);

/**
 * The days a key's `key.usage_spike` was sent (docs/budgets.md, "Alerts"): at most once per key
 * per day (UTC), claimed by inserting the day's row.
 */
export const keyUsageAlerts = pgTable(
  'key_usage_alerts',
  {
    keyId: text('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    sentAt: ts('sent_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day] })],
);
