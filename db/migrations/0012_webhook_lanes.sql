ALTER TABLE "webhooks" ADD COLUMN "drain_token" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "drain_until" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "webhooks_draining_idx" ON "webhooks" USING btree ("workspace_id") WHERE "webhooks"."drain_until" is not null;