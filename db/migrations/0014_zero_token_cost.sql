-- An execution that used no tokens costs 0 whatever its model's price (server/modules/usage/prices.ts).
-- Rollups compacted before counted such executions of an unpriced model as unpriced, making their
-- rows' cost (and every sum holding them) unknown. A rollup row is one agent, model and status in
-- one bucket: with no tokens at all, every execution in it used none, so none is unpriced.
UPDATE "usage_execution_rollups" SET "unpriced" = 0 WHERE "unpriced" > 0 AND "input_tokens" = 0 AND "output_tokens" = 0;
