ALTER TABLE "usage_execution_records" ADD COLUMN "agent_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_execution_rollups" ADD COLUMN "agent_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_execution_rollups" DROP CONSTRAINT "usage_execution_rollups_workspace_id_environment_granularity_bucket_agent_id_model_status_pk";--> statement-breakpoint
ALTER TABLE "usage_execution_rollups" ADD CONSTRAINT "usage_execution_rollups_workspace_id_environment_granularity_bucket_agent_id_agent_version_model_status_pk" PRIMARY KEY("workspace_id","environment","granularity","bucket","agent_id","agent_version","model","status");
