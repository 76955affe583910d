CREATE TABLE "usage_execution_records" (
	"execution_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"agent_id" text NOT NULL,
	"model" text NOT NULL,
	"status" text NOT NULL,
	"completed_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"tool_calls" integer NOT NULL,
	CONSTRAINT "usage_execution_records_environment_check" CHECK ("usage_execution_records"."environment" in ('live','test'))
);
--> statement-breakpoint
CREATE TABLE "usage_execution_rollups" (
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"granularity" text NOT NULL,
	"bucket" timestamp (3) with time zone NOT NULL,
	"agent_id" text NOT NULL,
	"model" text NOT NULL,
	"status" text NOT NULL,
	"executions" integer NOT NULL,
	"started" integer NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"tool_calls" bigint NOT NULL,
	"cost_usd" numeric NOT NULL,
	"unpriced" integer NOT NULL,
	"duration_hist" text NOT NULL,
	CONSTRAINT "usage_execution_rollups_workspace_id_environment_granularity_bucket_agent_id_model_status_pk" PRIMARY KEY("workspace_id","environment","granularity","bucket","agent_id","model","status"),
	CONSTRAINT "usage_execution_rollups_environment_check" CHECK ("usage_execution_rollups"."environment" in ('live','test')),
	CONSTRAINT "usage_execution_rollups_granularity_check" CHECK ("usage_execution_rollups"."granularity" in ('hour','day'))
);
--> statement-breakpoint
CREATE TABLE "usage_request_rollups" (
	"workspace_id" text NOT NULL,
	"environment" text NOT NULL,
	"granularity" text NOT NULL,
	"bucket" timestamp (3) with time zone NOT NULL,
	"key_id" text NOT NULL,
	"succeeded" integer NOT NULL,
	"client_errors" integer NOT NULL,
	"unauthorized" integer NOT NULL,
	"forbidden" integer NOT NULL,
	"rate_limited" integer NOT NULL,
	"server_errors" integer NOT NULL,
	"duration_hist" text NOT NULL,
	CONSTRAINT "usage_request_rollups_workspace_id_environment_granularity_bucket_key_id_pk" PRIMARY KEY("workspace_id","environment","granularity","bucket","key_id"),
	CONSTRAINT "usage_request_rollups_environment_check" CHECK ("usage_request_rollups"."environment" in ('live','test')),
	CONSTRAINT "usage_request_rollups_granularity_check" CHECK ("usage_request_rollups"."granularity" in ('hour','day'))
);
--> statement-breakpoint
ALTER TABLE "usage_execution_rollups" ADD CONSTRAINT "usage_execution_rollups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_request_rollups" ADD CONSTRAINT "usage_request_rollups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_execution_records_scope_idx" ON "usage_execution_records" USING btree ("workspace_id","environment","completed_at");--> statement-breakpoint
CREATE INDEX "usage_execution_rollups_age_idx" ON "usage_execution_rollups" USING btree ("granularity","bucket");--> statement-breakpoint
CREATE INDEX "usage_request_rollups_age_idx" ON "usage_request_rollups" USING btree ("granularity","bucket");--> statement-breakpoint
-- Adds two duration histograms (`<bucket>:<count>` pairs, comma-separated; '' when empty):
-- what an additive upsert of a rollup row does with its `duration_hist` (server/usage/histogram.ts).
CREATE FUNCTION usage_hist_add(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(k || ':' || n, ',' ORDER BY k), '') FROM (
    SELECT split_part(e, ':', 1)::int AS k, sum(split_part(e, ':', 2)::bigint) AS n
    FROM unnest(string_to_array(a || ',' || b, ',')) AS e WHERE e <> '' GROUP BY 1
  ) AS s
$$;--> statement-breakpoint
-- One usage record per execution that reaches a final state, in the transaction that made it
-- final, whichever code path did (a run's end, a cancel, the worker_lost sweeper, an agent's
-- deletion): counted exactly once by construction (docs/analytics.md).
CREATE FUNCTION usage_record_execution() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  done timestamptz := coalesce(NEW.completed_at, now());
BEGIN
  INSERT INTO usage_execution_records (execution_id, workspace_id, environment, agent_id, model, status, completed_at, duration_ms, input_tokens, output_tokens, tool_calls)
  VALUES (
    NEW.id, NEW.workspace_id, NEW.environment, NEW.agent_id, NEW.model, NEW.status, done,
    CASE WHEN NEW.started_at IS NULL THEN NULL ELSE greatest(0, round(extract(epoch FROM done - NEW.started_at) * 1000))::int END,
    NEW.input_tokens, NEW.output_tokens,
    coalesce((SELECT sum(json_array_length(s->'toolCalls')) FROM json_array_elements(NEW.steps) AS s WHERE json_typeof(s->'toolCalls') = 'array'), 0)
  )
  ON CONFLICT (execution_id) DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER executions_usage_on_final AFTER UPDATE OF status ON executions FOR EACH ROW
  WHEN (NEW.status IN ('succeeded', 'failed', 'cancelled') AND OLD.status NOT IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION usage_record_execution();--> statement-breakpoint
CREATE TRIGGER executions_usage_on_insert AFTER INSERT ON executions FOR EACH ROW
  WHEN (NEW.status IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION usage_record_execution();
