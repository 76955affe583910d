ALTER TABLE "users" ADD COLUMN "current_workspace_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_current_workspace_id_workspaces_id_fk" FOREIGN KEY ("current_workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Members before roles were 'owner' (sign-up) or 'member' (never written): a member becomes a developer.
UPDATE "workspace_members" SET "role" = 'developer' WHERE "role" = 'member';--> statement-breakpoint
ALTER TABLE "workspace_members" ADD CONSTRAINT "workspace_members_role_check" CHECK ("workspace_members"."role" in ('owner','admin','developer','viewer'));