CREATE TABLE "schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"agent_id" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"input" text NOT NULL,
	"conversation_id" text,
	"overlap" text DEFAULT 'skip' NOT NULL,
	"end_at" timestamp (3) with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"metadata" json DEFAULT '{}'::json NOT NULL,
	"next_run_at" timestamp (3) with time zone,
	"last_run_at" timestamp (3) with time zone,
	"last_execution_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "schedules_environment_check" CHECK ("schedules"."environment" in ('live','test')),
	CONSTRAINT "schedules_overlap_check" CHECK ("schedules"."overlap" in ('skip','enqueue'))
);
--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "schedules_list_idx" ON "schedules" USING btree ("workspace_id","environment","id");--> statement-breakpoint
CREATE INDEX "schedules_agent_idx" ON "schedules" USING btree ("workspace_id","environment","agent_id","id");--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("next_run_at") WHERE "schedules"."next_run_at" is not null;