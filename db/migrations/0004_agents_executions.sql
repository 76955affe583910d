CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"model" text NOT NULL,
	"instructions" text,
	"tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"temperature" real,
	"max_steps" integer NOT NULL,
	"timeout_seconds" integer NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tool_secret" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "agents_environment_check" CHECK ("agents"."environment" in ('live','test'))
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"agent_id" text NOT NULL,
	"active_execution_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversations_environment_check" CHECK ("conversations"."environment" in ('live','test'))
);
--> statement-breakpoint
CREATE TABLE "execution_events" (
	"execution_id" text NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"data" json NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "execution_events_execution_id_seq_pk" PRIMARY KEY("execution_id","seq")
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"agent_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"status" text NOT NULL,
	"input" text NOT NULL,
	"output" text,
	"steps" json DEFAULT '[]'::json NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"error_code" text,
	"error_message" text,
	"model" text NOT NULL,
	"cached" boolean DEFAULT false NOT NULL,
	"metadata" json DEFAULT '{}'::json NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"attempt" integer DEFAULT 0 NOT NULL,
	"heartbeat_at" timestamp (3) with time zone,
	"event_seq" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "executions_environment_check" CHECK ("executions"."environment" in ('live','test')),
	CONSTRAINT "executions_status_check" CHECK ("executions"."status" in ('queued','running','succeeded','failed','cancelled'))
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"conversation_id" text NOT NULL,
	"execution_id" text NOT NULL,
	"role" text NOT NULL,
	"content" text NOT NULL,
	"model_message" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messages_role_check" CHECK ("messages"."role" in ('user','assistant','tool'))
);
--> statement-breakpoint
CREATE TABLE "model_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"output" text NOT NULL,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_workspace_id_environment_key_pk" PRIMARY KEY("workspace_id","environment","key")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "execution_events" ADD CONSTRAINT "execution_events_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agents_list_idx" ON "agents" USING btree ("workspace_id","environment","id") WHERE "agents"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "executions_list_idx" ON "executions" USING btree ("workspace_id","environment","id");--> statement-breakpoint
CREATE INDEX "executions_agent_idx" ON "executions" USING btree ("workspace_id","environment","agent_id","id");--> statement-breakpoint
CREATE INDEX "executions_status_idx" ON "executions" USING btree ("workspace_id","environment","status","id");--> statement-breakpoint
CREATE INDEX "executions_conversation_idx" ON "executions" USING btree ("workspace_id","environment","conversation_id","id");--> statement-breakpoint
CREATE INDEX "executions_running_idx" ON "executions" USING btree ("heartbeat_at") WHERE "executions"."status" = 'running';--> statement-breakpoint
CREATE INDEX "executions_agent_active_idx" ON "executions" USING btree ("agent_id") WHERE "executions"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "messages_conversation_idx" ON "messages" USING btree ("conversation_id","id");