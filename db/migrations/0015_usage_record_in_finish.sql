-- The lifecycle's `finish` writes each execution's usage record in the statement that makes it
-- final (server/modules/executions/lifecycle.ts, docs/analytics.md), since the release before
-- this one; until now migration 0007's trigger wrote the same row too (ON CONFLICT kept one), for
-- processes of older releases that relied on it alone. No code of this release or the one before
-- needs it: both triggers and their function go. (Nothing inserts an execution already final.)
DROP TRIGGER IF EXISTS "executions_usage_on_final" ON "executions";--> statement-breakpoint
DROP TRIGGER IF EXISTS "executions_usage_on_insert" ON "executions";--> statement-breakpoint
DROP FUNCTION IF EXISTS usage_record_execution();
