import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { users, workspaces } from './accounts';
import { textEnum, ts } from './columns';
import { MEMBER_ROLES } from './values';

const role = textEnum('invitations', 'role', MEMBER_ROLES);

/**
 * Invitations to join a workspace (docs/teams.md, "Invitations"): an email address and a role,
 * a single-use link valid 7 days of which only the token's SHA-256 is kept (as for keys).
 */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Canonical (auth/guards.ts `canonicalEmail`): the address that may accept. */
    email: text('email').notNull(),
    role: role.column.notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedByUserId: text('invited_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
    acceptedByUserId: text('accepted_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: ts('revoked_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    role.check(t.role),
    uniqueIndex('invitations_token_hash_key').on(t.tokenHash),
    index('invitations_list_idx').on(t.workspaceId, t.id),
    // One pending invitation per address and workspace: inviting again replaces it.
    uniqueIndex('invitations_pending_key')
      .on(t.workspaceId, t.email)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
  ],
);
