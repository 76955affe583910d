DROP INDEX "executions_queued_idx";--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "waiting_turn" integer;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "waiting_on" text;--> statement-breakpoint
CREATE INDEX "executions_waiting_conversation_idx" ON "executions" USING btree ("conversation_id","waiting_turn") WHERE "executions"."waiting_turn" is not null;--> statement-breakpoint
CREATE INDEX "executions_waiting_schedule_idx" ON "executions" USING btree ("schedule_id","waiting_turn") WHERE "executions"."waiting_turn" is not null;--> statement-breakpoint
CREATE INDEX "executions_queued_idx" ON "executions" USING btree ("workspace_id","environment","id") WHERE "executions"."status" = 'queued' and "executions"."waiting_turn" is null;