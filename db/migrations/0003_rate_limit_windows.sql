-- Rate-limit counters skip the WAL (UNLOGGED, written by hand: drizzle-kit cannot express it).
-- A counter write then waits for no disk flush; after a database crash the tables come back
-- empty, which only starts every window afresh. See db/schema/ratelimit.ts.
CREATE UNLOGGED TABLE "rate_limit_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"minute_points" integer NOT NULL,
	"minute_expire" timestamp (3) with time zone NOT NULL,
	"day_points" integer NOT NULL,
	"day_expire" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rate_limits" SET UNLOGGED;
