CREATE TABLE "budget_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"budget_id" text NOT NULL,
	"execution_id" text NOT NULL,
	"tokens" bigint NOT NULL,
	"cost_usd" numeric DEFAULT '0' NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "budget_reservations" ADD CONSTRAINT "budget_reservations_budget_id_budgets_id_fk" FOREIGN KEY ("budget_id") REFERENCES "public"."budgets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_reservations_budget_idx" ON "budget_reservations" USING btree ("budget_id","expires_at");--> statement-breakpoint
CREATE INDEX "budget_reservations_execution_idx" ON "budget_reservations" USING btree ("execution_id");--> statement-breakpoint
-- The audit log is append-only (docs/audit.md): no UPDATE, no TRUNCATE, and a DELETE only inside
-- aas_prune_audit_events, the retention's one function (it marks its own transaction-local
-- setting around its statement; nothing else in the service sets it).
CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('aas.audit_prune', true) = 'on' THEN RETURN OLD; END IF;
  RAISE EXCEPTION 'audit_events is append-only';
END $$;--> statement-breakpoint
CREATE TRIGGER "audit_events_no_delete" BEFORE DELETE ON "audit_events" FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events" FOR EACH STATEMENT EXECUTE FUNCTION "audit_events_append_only"();--> statement-breakpoint
-- Deletes the records whose id sorts before `before` (an `aud_` id made from the retention's
-- cut-off time) and says how many.
CREATE FUNCTION "aas_prune_audit_events"("before" text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  PERFORM set_config('aas.audit_prune', 'on', true);
  DELETE FROM "audit_events" WHERE "id" < "before";
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('aas.audit_prune', 'off', true);
  RETURN n;
END $$;
