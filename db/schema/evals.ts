import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, json, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, textEnum, ts } from './columns';
import { EXPERIMENT_STATUSES, EXPERIMENT_RUN_STATES } from './values';

// Evals (docs/evals.md): datasets of items, experiments that run every item through one version
// of an agent and score the answers, and the rules that score a sample of an agent's production
// runs. An experiment copies its dataset's items into `experiment_runs` when it is created (one
// row per item and trial), so it reads them as they were then; the row holds the execution that
// answered it from the moment it is started, which is what keeps an item from running twice
// (server/modules/evals/driver.ts).

const datasetEnvironment = environmentColumn('datasets');
const itemEnvironment = environmentColumn('dataset_items');
const experimentEnvironment = environmentColumn('experiments');
const ruleEnvironment = environmentColumn('eval_rules');
const experimentStatus = textEnum('experiments', 'status', EXPERIMENT_STATUSES);
const runState = textEnum('experiment_runs', 'state', EXPERIMENT_RUN_STATES);

/** A scorer's verdict on one answer (docs/evals.md, "Scorers"). */
export interface StoredScore {
  score: number | null;
  pass: boolean | null;
  reason: string;
}

export const datasets = pgTable(
  'datasets',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: datasetEnvironment.column,
    name: text('name').notNull(),
    description: text('description'),
    /** Items it holds (≤ 10,000), kept with each insert and delete under the dataset's row lock. */
    itemCount: integer('item_count').notNull().default(0),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [datasetEnvironment.check(t.environment), index('datasets_list_idx').on(t.workspaceId, t.environment, t.id)],
);

export const datasetItems = pgTable(
  'dataset_items',
  {
    id: text('id').primaryKey(),
    datasetId: text('dataset_id')
      .notNull()
      .references(() => datasets.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').notNull(),
    environment: itemEnvironment.column,
    input: text('input').notNull(),
    /** What a good answer is: a text, or a JSON object or list; null: none given. `json`, not `jsonb`: kept as written, keys in their order. */
    expected: json('expected'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    /** The execution it was made from, if any. */
    sourceExecutionId: text('source_execution_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [itemEnvironment.check(t.environment), index('dataset_items_list_idx').on(t.datasetId, t.id)],
);

export const experiments = pgTable(
  'experiments',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: experimentEnvironment.column,
    name: text('name').notNull(),
    agentId: text('agent_id').notNull(),
    /** The version every item runs (a `label` is resolved once, when the experiment is created). */
    agentVersion: integer('agent_version').notNull(),
    /** The label it was asked for, if any (shown, never resolved again). */
    label: text('label'),
    datasetId: text('dataset_id').notNull(),
    scorers: jsonb('scorers').$type<Record<string, unknown>[]>().notNull(),
    trials: integer('trials').notNull(),
    concurrency: integer('concurrency').notNull(),
    baselineExperimentId: text('baseline_experiment_id'),
    status: experimentStatus.column.notNull().default('queued'),
    /** Item × trial runs in all, and those scored (or ended without an answer). */
    total: integer('total').notNull(),
    done: integer('done').notNull().default(0),
    summary: jsonb('summary').$type<Record<string, unknown>>(),
    comparison: jsonb('comparison').$type<Record<string, unknown>>(),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    /** The key that created it (null: the dashboard): its executions are the key's, for budgets on keys. */
    keyId: text('key_id'),
    /** The process driving it and until when (renewed while it does): one driver at a time, another takes over once it lapses. */
    leasedBy: text('leased_by'),
    leaseUntil: ts('lease_until'),
    createdAt: ts('created_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
  },
  (t) => [
    experimentEnvironment.check(t.environment),
    experimentStatus.check(t.status),
    index('experiments_list_idx').on(t.workspaceId, t.environment, t.id),
    // The driver's work: experiments not yet final.
    index('experiments_active_idx').on(t.id).where(sql`${t.status} in ('queued', 'running')`),
  ],
);

export const experimentRuns = pgTable(
  'experiment_runs',
  {
    experimentId: text('experiment_id')
      .notNull()
      .references(() => experiments.id, { onDelete: 'cascade' }),
    /** The item's place in the dataset when the experiment was created (keyset of the results). */
    position: integer('position').notNull(),
    trial: integer('trial').notNull(),
    itemId: text('item_id').notNull(),
    input: text('input').notNull(),
    expected: json('expected'),
    state: runState.column.notNull().default('pending'),
    /** Set in the transaction that starts it, before it can run: an item never runs twice. */
    executionId: text('execution_id'),
    /** The judges' executions (llm_judge scorers), by scorer name. */
    judges: jsonb('judges').$type<Record<string, string>>(),
    output: jsonb('output'),
    scores: jsonb('scores').$type<Record<string, StoredScore>>(),
  },
  (t) => [
    primaryKey({ columns: [t.experimentId, t.position, t.trial] }),
    runState.check(t.state),
    uniqueIndex('experiment_runs_execution_idx').on(t.executionId),
    index('experiment_runs_state_idx').on(t.experimentId, t.state),
  ],
);

export const evalRules = pgTable(
  'eval_rules',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: ruleEnvironment.column,
    agentId: text('agent_id').notNull(),
    scorers: jsonb('scorers').$type<Record<string, unknown>[]>().notNull(),
    sampleRate: doublePrecision('sample_rate').notNull(),
    /** `{scorer, mean, window}`: alert when the moving mean of the last `window` scores falls below `mean`. */
    alertBelow: jsonb('alert_below').$type<{ scorer: string; mean: number; window: number }>(),
    /** Below the line now: `eval.score_dropped` was sent and is not sent again until the mean recovers. */
    alerting: boolean('alerting').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [ruleEnvironment.check(t.environment), index('eval_rules_agent_idx').on(t.agentId)],
);

/** A sampled run to score (`scored_at` null) and, once scored, the rule's history (its moving mean). */
export const onlineScores = pgTable(
  'online_scores',
  {
    ruleId: text('rule_id')
      .notNull()
      .references(() => evalRules.id, { onDelete: 'cascade' }),
    executionId: text('execution_id').notNull(),
    queuedAt: ts('queued_at').notNull().defaultNow(),
    scoredAt: ts('scored_at'),
    judges: jsonb('judges').$type<Record<string, string>>(),
    scores: jsonb('scores').$type<Record<string, StoredScore>>(),
  },
  (t) => [
    primaryKey({ columns: [t.ruleId, t.executionId] }),
    index('online_scores_pending_idx').on(t.queuedAt).where(sql`${t.scoredAt} is null`),
    index('online_scores_history_idx').on(t.ruleId, t.scoredAt),
  ],
);
