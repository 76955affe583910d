-- A key's lookup may be kept in memory by the one process of the embedded database
-- (server/modules/keys/lookup-cache.ts; docs/security.md, "Key lookups on the embedded database").
-- Any statement that changes what a lookup reads (a key's hash, workspace, environment, scopes,
-- expiry or revocation; its workspace's plan or limit; a key or workspace deleted) signals it on
-- the `keys` channel (server/platform/notify.ts), delivered at its commit, and the kept lookups
-- are dropped. Once per statement, not per row; `last_used_at` and `name` changes do not signal.
CREATE FUNCTION "aas_keys_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('aas_keys', ''); RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER "api_keys_changed" AFTER UPDATE OF "hash", "workspace_id", "environment", "scopes", "expires_at", "revoked_at" OR DELETE OR TRUNCATE ON "api_keys" FOR EACH STATEMENT EXECUTE FUNCTION "aas_keys_changed"();--> statement-breakpoint
CREATE TRIGGER "workspaces_changed" AFTER UPDATE OF "plan", "custom_rpm" OR DELETE OR TRUNCATE ON "workspaces" FOR EACH STATEMENT EXECUTE FUNCTION "aas_keys_changed"();
