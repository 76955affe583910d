import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { textEnum, ts } from './columns';
import { MEMBER_ROLES } from './values';

export const PLANS = ['starter', 'professional', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
const plan = textEnum('workspaces', 'plan', PLANS);
const role = textEnum('workspace_members', 'role', MEMBER_ROLES);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    // argon2id PHC string; null for users who only sign in with GitHub.
    passwordHash: text('password_hash'),
    githubId: text('github_id'),
    /** The workspace the dashboard shows (the switcher's choice); null: the oldest membership. */
    currentWorkspaceId: text('current_workspace_id').references((): AnyPgColumn => workspaces.id, { onDelete: 'set null' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(sql`lower(${t.email})`),
    uniqueIndex('users_github_id_key').on(t.githubId),
  ],
);

export const workspaces = pgTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    plan: plan.column.notNull().default('starter'),
    // Requests per minute for the enterprise plan (custom); ignored on the other plans.
    customRpm: integer('custom_rpm'),
    // Executions running at once per environment for the enterprise plan (custom); ignored on
    // the other plans (docs/concurrency.md).
    customConcurrency: integer('custom_concurrency'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    plan.check(t.plan),
    check('workspaces_custom_rpm_check', sql`${t.customRpm} is null or ${t.customRpm} > 0`),
    check('workspaces_custom_concurrency_check', sql`${t.customConcurrency} is null or ${t.customConcurrency} > 0`),
  ],
);

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: role.column.notNull().default('owner'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index('workspace_members_user_idx').on(t.userId),
    role.check(t.role),
  ],
);
