ALTER TABLE "conversations" ADD COLUMN "message_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "last_message_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "conversations_list_idx" ON "conversations" USING btree ("workspace_id","environment","id");--> statement-breakpoint
CREATE INDEX "conversations_agent_idx" ON "conversations" USING btree ("workspace_id","environment","agent_id","id");--> statement-breakpoint
-- Existing conversations: their counts and last message time from their messages (one with
-- none, which no execution leaves, from its creation). By hand:
-- drizzle-kit writes only the columns.
UPDATE "conversations" SET "message_count" = m."n", "last_message_at" = m."last"
FROM (SELECT "conversation_id", count(*)::int AS "n", max("created_at") AS "last" FROM "messages" GROUP BY "conversation_id") AS m
WHERE m."conversation_id" = "conversations"."id";
--> statement-breakpoint
UPDATE "conversations" SET "last_message_at" = "created_at" WHERE "message_count" = 0;
