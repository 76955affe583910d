-- Approvals (docs/approvals.md): the `requires_action` status, what a paused run resumes from
-- (`approval`), when its first pending call expires (`approval_due_at`, the expiry sweep's index),
-- the time it spent waiting (`awaited_ms`, left out of its duration), and the agent's
-- `approval_timeout_seconds`. A paused run counts as active (its agent's, its schedule's).
ALTER TABLE "executions" DROP CONSTRAINT "executions_status_check";--> statement-breakpoint
DROP INDEX "executions_agent_active_idx";--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "approval_timeout_seconds" integer DEFAULT 86400 NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "approval" json;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "approval_due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "awaited_ms" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "executions_approval_due_idx" ON "executions" USING btree ("approval_due_at") WHERE "executions"."status" = 'requires_action';--> statement-breakpoint
CREATE INDEX "executions_agent_active_idx" ON "executions" USING btree ("agent_id") WHERE "executions"."status" in ('queued', 'running', 'requires_action');--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_status_check" CHECK ("executions"."status" in ('queued','running','requires_action','succeeded','failed','cancelled'));