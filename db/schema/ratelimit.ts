import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Counters of rate-limiter-flexible's Drizzle store, used when scaled out on PostgreSQL
// without Redis (one atomic upsert per request).
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull(),
  expire: timestamp('expire', { withTimezone: true, precision: 3 }),
});
