import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// The PostgreSQL rate-limit store (scaled out without Redis; server/platform/ratelimit/store-postgres.ts).
// Both tables are UNLOGGED (migration 0003, by hand: drizzle cannot say so): counters are not
// business data, so they skip the WAL — a write waits for no disk flush and holds its row lock
// for microseconds. After a database crash they come back empty (every window starts afresh),
// and they are not copied to replicas. Expired rows are deleted every few minutes.

/** One counter per row: the dashboard's sign-in/sign-up guards and the per-address guard. */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull(),
  expire: timestamp('expire', { withTimezone: true, precision: 3 }),
});

/** Both windows of one API key in one row, so one statement charges them by the rules of limiter.ts. */
export const rateLimitWindows = pgTable('rate_limit_windows', {
  key: text('key').primaryKey(),
  minutePoints: integer('minute_points').notNull(),
  minuteExpire: timestamp('minute_expire', { withTimezone: true, precision: 3 }).notNull(),
  dayPoints: integer('day_points').notNull(),
  dayExpire: timestamp('day_expire', { withTimezone: true, precision: 3 }).notNull(),
});
