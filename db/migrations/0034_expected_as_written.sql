ALTER TABLE "dataset_items" ALTER COLUMN "expected" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "experiment_runs" ALTER COLUMN "expected" SET DATA TYPE json;