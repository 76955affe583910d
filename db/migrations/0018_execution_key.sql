-- The API key that started an execution (null: the playground, a schedule), for budgets on a key (docs/budgets-plan.md).
ALTER TABLE "executions" ADD COLUMN "key_id" text;