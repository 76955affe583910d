ALTER TABLE "agents" ADD COLUMN "trace_content" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "trace_parent_id" text;