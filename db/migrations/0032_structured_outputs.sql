ALTER TABLE "agents" ADD COLUMN "output_schema" jsonb;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "output_schema" jsonb;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "output_json" jsonb;