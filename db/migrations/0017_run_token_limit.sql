-- A run's token cap on the agent (docs/api.md, "Agents", `maxTotalTokens`); null: none.
ALTER TABLE "agents" ADD COLUMN "max_total_tokens" integer;