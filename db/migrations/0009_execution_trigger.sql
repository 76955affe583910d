ALTER TABLE "executions" ADD COLUMN "trigger" json DEFAULT '{"type":"api"}'::json NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "schedule_id" text;--> statement-breakpoint
CREATE INDEX "executions_schedule_idx" ON "executions" USING btree ("workspace_id","environment","schedule_id","id") WHERE "executions"."schedule_id" is not null;