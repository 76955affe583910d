-- Budgets and their ledger (docs/budgets.md): a cap per workspace, agent or key, and per period the spend counted against it; and the days a key's usage spike was sent.
CREATE TABLE "key_usage_alerts" (
	"key_id" text NOT NULL,
	"day" date NOT NULL,
	"sent_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "key_usage_alerts_key_id_day_pk" PRIMARY KEY("key_id","day")
);
--> statement-breakpoint
CREATE TABLE "budget_spend" (
	"budget_id" text NOT NULL,
	"period_start" timestamp (3) with time zone NOT NULL,
	"cost_usd" numeric DEFAULT '0' NOT NULL,
	"tokens" bigint DEFAULT 0 NOT NULL,
	"unpriced" integer DEFAULT 0 NOT NULL,
	"alerted" integer[] DEFAULT '{}' NOT NULL,
	"exceeded_at" timestamp (3) with time zone,
	"reset_at" timestamp (3) with time zone,
	CONSTRAINT "budget_spend_budget_id_period_start_pk" PRIMARY KEY("budget_id","period_start")
);
--> statement-breakpoint
CREATE TABLE "budgets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"limit_usd" numeric,
	"limit_tokens" bigint,
	"period" text NOT NULL,
	"timezone" text NOT NULL,
	"alert_at" integer[] NOT NULL,
	"action" text NOT NULL,
	"metadata" json DEFAULT '{}'::json NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budgets_environment_check" CHECK ("budgets"."environment" in ('live','test')),
	CONSTRAINT "budgets_target_type_check" CHECK ("budgets"."target_type" in ('workspace','agent','key')),
	CONSTRAINT "budgets_period_check" CHECK ("budgets"."period" in ('day','week','month','total')),
	CONSTRAINT "budgets_action_check" CHECK ("budgets"."action" in ('block','notify')),
	CONSTRAINT "budgets_limit_check" CHECK (("budgets"."limit_usd" is null) <> ("budgets"."limit_tokens" is null)),
	CONSTRAINT "budgets_target_check" CHECK (("budgets"."target_type" = 'workspace') = ("budgets"."target_id" is null))
);
--> statement-breakpoint
ALTER TABLE "key_usage_alerts" ADD CONSTRAINT "key_usage_alerts_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budget_spend" ADD CONSTRAINT "budget_spend_budget_id_budgets_id_fk" FOREIGN KEY ("budget_id") REFERENCES "public"."budgets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_spend_reset_idx" ON "budget_spend" USING btree ("period_start") WHERE "budget_spend"."exceeded_at" is not null and "budget_spend"."reset_at" is null;--> statement-breakpoint
CREATE INDEX "budgets_list_idx" ON "budgets" USING btree ("workspace_id","environment","id");