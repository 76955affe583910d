import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { ts } from './columns';

// Dashboard sessions. The next-auth JWT carries only the session id; every read of the session
// checks this row, so signing out (one session), signing out everywhere and a password change
// (every session of the user) take effect at once, in every process.
export const userSessions = pgTable(
  'user_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('user_sessions_user_idx').on(t.userId)],
);
