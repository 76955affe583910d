import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts';

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
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [index('user_sessions_user_idx').on(t.userId)],
);
