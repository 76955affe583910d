-- Consecutive `text.delta` events of one write share a row (server/modules/executions/packs.ts;
-- docs/executions.md, "How events are stored"): `seq` is the first one's number, `last_seq` the
-- last one's, and `data` the JSON array of their data. Rows written before keep `last_seq` null.
ALTER TABLE "execution_events" ADD COLUMN "last_seq" integer;
