import { sql } from 'drizzle-orm';
import { boolean, index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, textEnum, ts } from './columns';
import { SCHEDULE_OVERLAPS } from './values';

// Schedules (docs/schedules.md): an agent run on a cron. `next_run_at` is the schedule's next
// occurrence, and it is what fires it: a tick claims the due rows (`next_run_at <= now()`, FOR
// UPDATE SKIP LOCKED), creates each one's execution and moves `next_run_at` on in one
// transaction, so an occurrence has exactly one execution whatever the number of processes.
// Null when the schedule is disabled or past its `end_at`.


const environment = environmentColumn('schedules');
const overlap = textEnum('schedules', 'overlap', SCHEDULE_OVERLAPS);

export const schedules = pgTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: environment.column,
    agentId: text('agent_id').notNull(),
    cron: text('cron').notNull(),
    timezone: text('timezone').notNull(),
    input: text('input').notNull(),
    conversationId: text('conversation_id'),
    overlap: overlap.column.notNull().default('skip'),
    endAt: ts('end_at'),
    enabled: boolean('enabled').notNull().default(true),
    metadata: json('metadata').$type<Record<string, string>>().notNull().default({}),
    // The label whose version its runs run (docs/versions.md); null: as an execute without one.
    label: text('label'),
    nextRunAt: ts('next_run_at'),
    lastRunAt: ts('last_run_at'),
    lastExecutionId: text('last_execution_id'),
    /** The API key that created the schedule: its runs are that key's (budgets, usage, audit: docs/schedules.md). Null: made in the dashboard. */
    keyId: text('key_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    environment.check(t.environment),
    overlap.check(t.overlap),
    index('schedules_list_idx').on(t.workspaceId, t.environment, t.id),
    index('schedules_agent_idx').on(t.workspaceId, t.environment, t.agentId, t.id),
    // The ticks' one query: the enabled schedules that are due.
    index('schedules_due_idx').on(t.nextRunAt).where(sql`${t.nextRunAt} is not null`),
  ],
);
