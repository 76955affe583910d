-- URLs that are credentials (docs/security.md, "Secrets at rest"): whether an agent's tools hold a
-- tool whose URL was stored by an older version (no `maskedUrl` beside it: neither masked nor,
-- when it holds a credential, sealed yet). Used by the partial index agents_unsealed_idx, with
-- webhooks' `url_masked is null`, so the start-up finds the rows to seal without reading every row.
CREATE FUNCTION aas_unmasked_urls(tools jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(tools) = 'array' THEN EXISTS (
    SELECT 1
    FROM jsonb_array_elements(tools) AS t(tool)
    WHERE jsonb_typeof(t.tool -> 'maskedUrl') IS DISTINCT FROM 'string'
  ) ELSE false END
$$;--> statement-breakpoint
DROP INDEX "agents_unsealed_idx";--> statement-breakpoint
DROP INDEX "webhooks_unsealed_idx";--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "url_masked" text;--> statement-breakpoint
CREATE INDEX "agents_unsealed_idx" ON "agents" USING btree ("id") WHERE (not starts_with("agents"."tool_secret", 'enc:') or not starts_with("agents"."previous_tool_secret", 'enc:') or aas_unsealed_headers("agents"."tools") or aas_unmasked_urls("agents"."tools"));--> statement-breakpoint
CREATE INDEX "webhooks_unsealed_idx" ON "webhooks" USING btree ("id") WHERE (not starts_with("webhooks"."secret", 'enc:') or not starts_with("webhooks"."previous_secret", 'enc:') or "webhooks"."url_masked" is null);