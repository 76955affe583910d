import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, json, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, textEnum, ts } from './columns';
import { BUDGET_ACTIONS, BUDGET_PERIODS, BUDGET_TARGETS } from './values';

// Budgets (docs/budgets.md): a cap on what a workspace, an agent or a key spends per period, and
// the ledger that counts it. `budget_spend` has one row per budget and period: the worker adds
// each model call's cost and tokens to it as the call ends (one upsert), and checks it before the
// next call (server/modules/budgets/ledger.ts). A period's row is keyed by its start, computed in SQL in the budget's zone
// (`date_trunc`), so a new period is a new row and nothing needs to roll over.

const environment = environmentColumn('budgets');
const target = textEnum('budgets', 'target_type', BUDGET_TARGETS);
const period = textEnum('budgets', 'period', BUDGET_PERIODS);
const action = textEnum('budgets', 'action', BUDGET_ACTIONS);

export const budgets = pgTable(
  'budgets',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: environment.column,
    name: text('name').notNull(),
    targetType: target.column.notNull(),
    /** The agent's or the key's id; null for a workspace budget. */
    targetId: text('target_id'),
    /** The cap in USD (exact decimal) or in tokens: exactly one is set. */
    limitUsd: numeric('limit_usd'),
    limitTokens: bigint('limit_tokens', { mode: 'number' }),
    period: period.column.notNull(),
    timezone: text('timezone').notNull(),
    /** Percentages of the limit that send `budget.threshold_reached`, ascending. */
    alertAt: integer('alert_at').array().notNull(),
    action: action.column.notNull(),
    metadata: json('metadata').$type<Record<string, string>>().notNull().default({}),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    environment.check(t.environment),
    target.check(t.targetType),
    period.check(t.period),
    action.check(t.action),
    check('budgets_limit_check', sql`(${t.limitUsd} is null) <> (${t.limitTokens} is null)`),
    check('budgets_target_check', sql`(${t.targetType} = 'workspace') = (${t.targetId} is null)`),
    index('budgets_list_idx').on(t.workspaceId, t.environment, t.id),
  ],
);

export const budgetSpend = pgTable(
  'budget_spend',
  {
    budgetId: text('budget_id')
      .notNull()
      .references(() => budgets.id, { onDelete: 'cascade' }),
    /** The first instant of the period (the epoch for `total`). */
    periodStart: ts('period_start').notNull(),
    costUsd: numeric('cost_usd').notNull().default('0'),
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
    /** Live model calls of a model with no price: their cost is not in `cost_usd`. */
    unpriced: integer('unpriced').notNull().default(0),
    /** The thresholds (percent) whose `budget.threshold_reached` was sent this period: each is sent once. */
    alerted: integer('alerted').array().notNull().default(sql`'{}'`),
    /** When spend reached the limit this period (`budget.exceeded`), and when `budget.reset` was sent for it. */
    exceededAt: ts('exceeded_at'),
    resetAt: ts('reset_at'),
  },
  (t) => [
    primaryKey({ columns: [t.budgetId, t.periodStart] }),
    // The reset loop's query: exceeded periods whose reset is not sent yet.
    index('budget_spend_reset_idx').on(t.periodStart).where(sql`${t.exceededAt} is not null and ${t.resetAt} is null`),
  ],
);

/**
 * What model calls in flight have reserved against `block` budgets (docs/budgets.md, "Reservations"):
 * before a call starts, its worst case (the prompt's tokens and the most it may answer, priced) is
 * reserved on every `block` budget counting the run, under the budgets' row locks, and refused when it
 * would pass a limit; the call's charge deletes its reservation. A reservation a lost process never
 * settled stops counting at `expires_at` (the run's deadline) and maintenance deletes it.
 */
export const budgetReservations = pgTable(
  'budget_reservations',
  {
    id: text('id').primaryKey(),
    budgetId: text('budget_id')
      .notNull()
      .references(() => budgets.id, { onDelete: 'cascade' }),
    executionId: text('execution_id').notNull(),
    tokens: bigint('tokens', { mode: 'number' }).notNull(),
    costUsd: numeric('cost_usd').notNull().default('0'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('budget_reservations_budget_idx').on(t.budgetId, t.expiresAt), index('budget_reservations_execution_idx').on(t.executionId)],
);
