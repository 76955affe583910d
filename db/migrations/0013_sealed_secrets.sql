-- Secrets at rest (docs/security.md): whether an agent's tools hold an MCP header value that is
-- not sealed yet. Used by the partial index agents_unsealed_idx, so the start-up finds the rows
-- to seal without reading every agent's tools.
CREATE FUNCTION aas_unsealed_headers(tools jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(tools) = 'array' THEN EXISTS (
    SELECT 1
    FROM jsonb_array_elements(tools) AS t(tool),
      jsonb_each_text(CASE WHEN jsonb_typeof(t.tool -> 'headers') = 'object' THEN t.tool -> 'headers' ELSE '{}'::jsonb END) AS h
    WHERE NOT starts_with(h.value, 'enc:')
  ) ELSE false END
$$;--> statement-breakpoint
CREATE INDEX "agents_unsealed_idx" ON "agents" USING btree ("id") WHERE (not starts_with("agents"."tool_secret", 'enc:') or not starts_with("agents"."previous_tool_secret", 'enc:') or aas_unsealed_headers("agents"."tools"));--> statement-breakpoint
CREATE INDEX "idempotency_keys_unkeyed_idx" ON "idempotency_keys" USING btree ("workspace_id","environment","key") WHERE strpos("idempotency_keys"."fingerprint", ':') = 0;--> statement-breakpoint
CREATE INDEX "webhooks_unsealed_idx" ON "webhooks" USING btree ("id") WHERE (not starts_with("webhooks"."secret", 'enc:') or not starts_with("webhooks"."previous_secret", 'enc:'));