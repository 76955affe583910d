import { bigint, index, integer, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, textEnum, ts } from './columns';

// Usage analytics (docs/analytics.md). Nothing here is written on the request path or as a
// shared row in an execution's finish transaction:
// - `usage_execution_records`: one append-only row per execution that reached a final state,
//   written by the lifecycle's `finish` in the transaction that made it final (so it exists
//   exactly once, whichever process or path ended the run; migration 0007's trigger wrote it
//   before, 0015 dropped it), deleted when compacted;
// - `usage_execution_rollups` / `usage_request_rollups`: hour and day rows, grown by additive
//   upserts (counters add, duration histograms merge) by the compactor and by each process's
//   request buffer; pruned past their retention.

export const GRANULARITIES = ['hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const recordEnvironment = environmentColumn('usage_execution_records');
const executionRollupEnvironment = environmentColumn('usage_execution_rollups');
const requestRollupEnvironment = environmentColumn('usage_request_rollups');
const executionGranularity = textEnum('usage_execution_rollups', 'granularity', GRANULARITIES);
const requestGranularity = textEnum('usage_request_rollups', 'granularity', GRANULARITIES);

const workspaceId = () =>
  text('workspace_id')
    .notNull()
    .references(() => workspaces.id, { onDelete: 'cascade' });

/**
 * A duration histogram (server/modules/usage/histogram.ts): `<bucket>:<count>` pairs joined by commas,
 * e.g. `157:1,158:4`; '' when empty. Text, not jsonb: a query reads thousands of them, and text
 * is copied out as it is where jsonb prints every count as a numeric.
 */
export type Histogram = string;

export const usageExecutionRecords = pgTable(
  'usage_execution_records',
  {
    executionId: text('execution_id').primaryKey(),
    // No foreign key: checking one would lock the workspace row (FOR KEY SHARE) in every finish
    // transaction. The compactor drops rows of a workspace deleted meanwhile.
    workspaceId: text('workspace_id').notNull(),
    environment: recordEnvironment.column,
    agentId: text('agent_id').notNull(),
    // The version of the agent the execution ran (docs/versions.md); 0: before versions.
    agentVersion: integer('agent_version').notNull().default(0),
    model: text('model').notNull(),
    status: text('status').notNull(),
    completedAt: ts('completed_at').notNull(),
    /** `completed_at − started_at` in ms; null for an execution cancelled before it started. */
    durationMs: integer('duration_ms'),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    toolCalls: integer('tool_calls').notNull(),
  },
  (t) => [recordEnvironment.check(t.environment), index('usage_execution_records_scope_idx').on(t.workspaceId, t.environment, t.completedAt)],
);

export const usageExecutionRollups = pgTable(
  'usage_execution_rollups',
  {
    workspaceId: workspaceId(),
    environment: executionRollupEnvironment.column,
    granularity: executionGranularity.column.notNull(),
    bucket: ts('bucket').notNull(),
    agentId: text('agent_id').notNull(),
    // 0: executions from before versions (a key column: never null).
    agentVersion: integer('agent_version').notNull().default(0),
    model: text('model').notNull(),
    status: text('status').notNull(),
    executions: integer('executions').notNull(),
    /** Executions that started (those with a duration). */
    started: integer('started').notNull(),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull(),
    toolCalls: bigint('tool_calls', { mode: 'number' }).notNull(),
    /** Sum of the priced executions' cost in USD (exact decimal). */
    costUsd: numeric('cost_usd').notNull(),
    /** Live executions of a model without a price: the row's cost is unknown (null) when > 0. */
    unpriced: integer('unpriced').notNull(),
    durationHist: text('duration_hist').$type<Histogram>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.environment, t.granularity, t.bucket, t.agentId, t.agentVersion, t.model, t.status] }),
    executionRollupEnvironment.check(t.environment),
    executionGranularity.check(t.granularity),
    // Retention pruning: by granularity and age, across workspaces.
    index('usage_execution_rollups_age_idx').on(t.granularity, t.bucket),
  ],
);

export const usageRequestRollups = pgTable(
  'usage_request_rollups',
  {
    workspaceId: workspaceId(),
    environment: requestRollupEnvironment.column,
    granularity: requestGranularity.column.notNull(),
    bucket: ts('bucket').notNull(),
    keyId: text('key_id').notNull(),
    succeeded: integer('succeeded').notNull(),
    clientErrors: integer('client_errors').notNull(),
    unauthorized: integer('unauthorized').notNull(),
    forbidden: integer('forbidden').notNull(),
    rateLimited: integer('rate_limited').notNull(),
    serverErrors: integer('server_errors').notNull(),
    durationHist: text('duration_hist').$type<Histogram>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.environment, t.granularity, t.bucket, t.keyId] }),
    requestRollupEnvironment.check(t.environment),
    requestGranularity.check(t.granularity),
    index('usage_request_rollups_age_idx').on(t.granularity, t.bucket),
  ],
);
