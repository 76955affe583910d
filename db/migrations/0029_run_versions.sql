ALTER TABLE "conversations" ADD COLUMN "agent_version" integer;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "agent_version" integer;