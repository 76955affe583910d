-- Open-stream leases skip the WAL (UNLOGGED, by hand: drizzle-kit cannot express it): after a
-- database crash they come back empty, which only forgets streams that ended with it.
CREATE UNLOGGED TABLE "stream_leases" (
	"id" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"workspace_id" text NOT NULL,
	"process" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "custom_concurrency" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "previous_tool_secret" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "previous_tool_secret_expires_at" timestamp (3) with time zone;--> statement-breakpoint
-- Stored answers were kept in plaintext and not bound to a key: they are dropped (a retry of a
-- request made before this migration runs again as a new request).
DELETE FROM "idempotency_keys";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "api_key_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "response_sealed" text;--> statement-breakpoint
CREATE INDEX "stream_leases_holder_idx" ON "stream_leases" USING btree ("holder");--> statement-breakpoint
CREATE INDEX "stream_leases_process_idx" ON "stream_leases" USING btree ("process");--> statement-breakpoint
CREATE INDEX "stream_leases_workspace_idx" ON "stream_leases" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "executions_queued_idx" ON "executions" USING btree ("workspace_id","environment","id") WHERE "executions"."status" = 'queued';--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_body";--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_custom_concurrency_check" CHECK ("workspaces"."custom_concurrency" is null or "workspaces"."custom_concurrency" > 0);