CREATE TABLE "dataset_items" (
	"id" text PRIMARY KEY NOT NULL,
	"dataset_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"input" text NOT NULL,
	"expected" jsonb,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source_execution_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dataset_items_environment_check" CHECK ("dataset_items"."environment" in ('live','test'))
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"item_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "datasets_environment_check" CHECK ("datasets"."environment" in ('live','test'))
);
--> statement-breakpoint
CREATE TABLE "eval_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"agent_id" text NOT NULL,
	"scorers" jsonb NOT NULL,
	"sample_rate" double precision NOT NULL,
	"alert_below" jsonb,
	"alerting" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eval_rules_environment_check" CHECK ("eval_rules"."environment" in ('live','test'))
);
--> statement-breakpoint
CREATE TABLE "experiment_runs" (
	"experiment_id" text NOT NULL,
	"position" integer NOT NULL,
	"trial" integer NOT NULL,
	"item_id" text NOT NULL,
	"input" text NOT NULL,
	"expected" jsonb,
	"state" text DEFAULT 'pending' NOT NULL,
	"execution_id" text,
	"judges" jsonb,
	"output" jsonb,
	"scores" jsonb,
	CONSTRAINT "experiment_runs_experiment_id_position_trial_pk" PRIMARY KEY("experiment_id","position","trial"),
	CONSTRAINT "experiment_runs_state_check" CHECK ("experiment_runs"."state" in ('pending','running','judging','scored','skipped'))
);
--> statement-breakpoint
CREATE TABLE "experiments" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"agent_id" text NOT NULL,
	"agent_version" integer NOT NULL,
	"label" text,
	"dataset_id" text NOT NULL,
	"scorers" jsonb NOT NULL,
	"trials" integer NOT NULL,
	"concurrency" integer NOT NULL,
	"baseline_experiment_id" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"total" integer NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"summary" jsonb,
	"comparison" jsonb,
	"error_code" text,
	"error_message" text,
	"key_id" text,
	"leased_by" text,
	"lease_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	CONSTRAINT "experiments_environment_check" CHECK ("experiments"."environment" in ('live','test')),
	CONSTRAINT "experiments_status_check" CHECK ("experiments"."status" in ('queued','running','succeeded','failed','cancelled'))
);
--> statement-breakpoint
CREATE TABLE "online_scores" (
	"rule_id" text NOT NULL,
	"execution_id" text NOT NULL,
	"queued_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"scored_at" timestamp (3) with time zone,
	"judges" jsonb,
	"scores" jsonb,
	CONSTRAINT "online_scores_rule_id_execution_id_pk" PRIMARY KEY("rule_id","execution_id")
);
--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "scores" jsonb;--> statement-breakpoint
ALTER TABLE "dataset_items" ADD CONSTRAINT "dataset_items_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_rules" ADD CONSTRAINT "eval_rules_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "experiment_runs" ADD CONSTRAINT "experiment_runs_experiment_id_experiments_id_fk" FOREIGN KEY ("experiment_id") REFERENCES "public"."experiments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "online_scores" ADD CONSTRAINT "online_scores_rule_id_eval_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."eval_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dataset_items_list_idx" ON "dataset_items" USING btree ("dataset_id","id");--> statement-breakpoint
CREATE INDEX "datasets_list_idx" ON "datasets" USING btree ("workspace_id","environment","id");--> statement-breakpoint
CREATE INDEX "eval_rules_agent_idx" ON "eval_rules" USING btree ("agent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "experiment_runs_execution_idx" ON "experiment_runs" USING btree ("execution_id");--> statement-breakpoint
CREATE INDEX "experiment_runs_state_idx" ON "experiment_runs" USING btree ("experiment_id","state");--> statement-breakpoint
CREATE INDEX "experiments_list_idx" ON "experiments" USING btree ("workspace_id","environment","id");--> statement-breakpoint
CREATE INDEX "experiments_active_idx" ON "experiments" USING btree ("id") WHERE "experiments"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "online_scores_pending_idx" ON "online_scores" USING btree ("queued_at") WHERE "online_scores"."scored_at" is null;--> statement-breakpoint
CREATE INDEX "online_scores_history_idx" ON "online_scores" USING btree ("rule_id","scored_at");