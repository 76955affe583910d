import { index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { ts } from './columns';

/**
 * The audit log (docs/audit.md): who changed what in a workspace, written in the transaction of
 * the change. Append-only: nothing updates a row; maintenance deletes rows past 365 days.
 * `changes` holds `{field: [before, after]}` of the API's views (never a secret).
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    /** `aud_` + ULID: ordered by time, the keyset of every listing. */
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The environment of the change's target; null for workspace-wide changes (members, account, sign-ins). */
    environment: text('environment'),
    action: text('action').notNull(),
    /** `user`, `key` or `system`. */
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id'),
    /** The user's email or the key's prefix as they were at the time. */
    actorLabel: text('actor_label'),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    requestId: text('request_id'),
    changes: json('changes').$type<Record<string, [unknown, unknown]>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('audit_events_list_idx').on(t.workspaceId, t.id),
    index('audit_events_action_idx').on(t.workspaceId, t.action, t.id),
    index('audit_events_actor_idx').on(t.workspaceId, t.actorId, t.id),
    index('audit_events_target_idx').on(t.workspaceId, t.targetId, t.id),
  ],
);
