import { z } from 'zod';
import { ENVIRONMENTS, EXPERIMENT_STATUSES } from '../../../db/schema/values';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';
import { scorersSchema } from './scorer-schemas';

// Request and response shapes of /v1/experiments (docs/evals.md, "Experiments").

export const MAX_TRIALS = 10;
export const MAX_CONCURRENCY = 20;
/** Experiments one workspace may have queued or running at once, per environment. */
export const MAX_ACTIVE_EXPERIMENTS = 10;

const EXPERIMENT_ID = 'exp_01JD8X41B2C3D4E5F6G7H8J9K0';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });
const LABEL = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export const createExperimentInput = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional().meta({ description: 'Shown in the dashboard (1–100 characters). Default: the dataset’s name and the version.', example: 'Refund policy v4' }),
    agentId: z.string().max(100).meta({ description: 'The agent to run (`agt_…`).', example: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }),
    version: z.int().min(1).optional().meta({ description: 'The version to run. Not with `label`. Default: the version `production` points at, resolved when the experiment is created.', example: 4 }),
    label: z.string().regex(LABEL, 'must be a label name').optional().meta({ description: 'The version a label points at now (resolved once, when the experiment is created). Not with `version`.', example: 'staging' }),
    datasetId: z.string().max(100).meta({ description: 'The dataset whose items it runs (`dst_…`): read as they are now; later changes do not reach it.', example: 'dst_01JD8X41B2C3D4E5F6G7H8J9K0' }),
    scorers: scorersSchema,
    trials: z.int().min(1).max(MAX_TRIALS).default(1).meta({ description: `Runs per item, 1–${MAX_TRIALS} (an item’s score is the mean of its trials). Default 1.`, example: 1 }),
    concurrency: z.int().min(1).max(MAX_CONCURRENCY).default(5).meta({ description: `Runs at once, 1–${MAX_CONCURRENCY}, within the workspace’s own concurrency limit. Default 5.`, example: 5 }),
    baselineExperimentId: z.string().max(100).optional().meta({ description: 'An earlier experiment to compare with, item by item (`exp_…`).', example: 'exp_01JD8X41B2C3D4E5F6G7H8J9K1' }),
  })
  .meta({ id: 'CreateExperimentRequest' });

const experimentId = z.string().meta({ description: 'The id of the experiment (`exp_…`).', example: EXPERIMENT_ID });
export const experimentIdInput = z.strictObject({ id: experimentId });
export const listExperimentsInput = z.strictObject({
  ...pageQuerySchema,
  agentId: z.string().max(100).optional().meta({ description: 'Only experiments of this agent.' }),
  datasetId: z.string().max(100).optional().meta({ description: 'Only experiments of this dataset.' }),
});
export const listResultsInput = z.strictObject({
  id: experimentId,
  limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: 'Items per page, 1–100. Default 20.', example: 20 }),
  after: z.string().max(20).optional().meta({ description: 'A cursor: the items after this one (the `nextCursor` of the previous page).' }),
});

const interval = z.tuple([z.number(), z.number()]).nullable().meta({ description: 'The 95 % interval, `[low, high]`; `null` when nothing was scored.', example: [0.71, 0.89] });

export const summarySchema = z
  .record(
    z.string(),
    z.object({
      mean: z.number().nullable().meta({ description: 'The mean score over the scored items (an item’s score is the mean of its trials).', example: 0.8 }),
      stddev: z.number().nullable().meta({ description: 'The sample standard deviation of the items’ scores.', example: 0.2 }),
      ci95: interval,
      passRate: z.number().nullable().meta({ description: 'The share of scored runs that passed.', example: 0.8 }),
      scored: z.int().meta({ description: 'Items scored (not `null`).', example: 20 }),
    }),
  )
  .meta({ id: 'ExperimentSummary', description: 'By scorer name: the mean, standard deviation, Student-t 95 % interval of the mean, and pass rate (docs/evals.md, "Statistics").' });

export const comparisonSchema = z
  .record(
    z.string(),
    z.object({
      baselineMean: z.number().nullable().meta({ example: 0.7 }),
      diff: z.number().nullable().meta({ description: 'This mean minus the baseline’s.', example: 0.1 }),
      ci95: interval.meta({ description: 'The 95 % interval of the difference: paired t over the items both scored (two or more), else Welch’s.' }),
      paired: z.boolean().meta({ example: true }),
    }),
  )
  .meta({ id: 'ExperimentComparison', description: 'By scorer name (the scorers both experiments share): the difference of means with its 95 % interval.' });

export const experimentSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier (`exp_…`).', example: EXPERIMENT_ID }),
    name: z.string().meta({ example: 'Refund policy v4' }),
    agentId: z.string().meta({ example: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }),
    agentVersion: z.int().meta({ description: 'The version every item ran.', example: 4 }),
    label: z.string().nullable().meta({ description: 'The label it was asked for, if any.', example: null }),
    datasetId: z.string().meta({ example: 'dst_01JD8X41B2C3D4E5F6G7H8J9K0' }),
    scorers: z.array(z.record(z.string(), z.unknown())).meta({ description: 'The scorers, each with its `name`.' }),
    trials: z.int().meta({ example: 1 }),
    concurrency: z.int().meta({ example: 5 }),
    baselineExperimentId: z.string().nullable().meta({ example: null }),
    status: z.enum(EXPERIMENT_STATUSES).meta({ description: '`queued`, `running`, then `succeeded`, `failed` (see `error`) or `cancelled`.', example: 'running' }),
    progress: z.object({ done: z.int(), total: z.int() }).meta({ description: 'Runs (items × trials) scored or ended, of all.', example: { done: 12, total: 40 } }),
    summary: summarySchema.nullable(),
    comparison: comparisonSchema.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable().meta({ description: 'Why it failed (e.g. `budget_exceeded`, `resource_not_found` when its agent was deleted).', example: null }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'test' }),
    createdAt: timestamp,
    startedAt: timestamp.nullable(),
    completedAt: timestamp.nullable(),
  })
  .meta({ id: 'Experiment' });

export const experimentListSchema = pageEnvelopeSchema(experimentSchema).meta({ id: 'ExperimentList' });

const itemScore = z.object({
  mean: z.number().nullable().meta({ description: 'The mean of its trials’ scores (`null`: not scored).', example: 1 }),
  pass: z.boolean().nullable().meta({ description: 'Every scored trial passed.', example: true }),
  reason: z.string().meta({ description: 'The first trial’s reason.', example: 'the output matched' }),
});

export const experimentResultSchema = z
  .object({
    itemId: z.string().meta({ example: 'dsi_01JD8X41B2C3D4E5F6G7H8J9K1' }),
    input: z.string().meta({ example: 'Where is order 1042?' }),
    expected: z.unknown().nullable().meta({ example: 'Shipped' }),
    executionIds: z.array(z.string()).meta({ description: 'Its trials’ executions, in order (a trial not yet started has none).' }),
    outputs: z.array(z.unknown().nullable()).meta({ description: 'Its trials’ outputs (the structured output when there is one), in order; `null` where none.' }),
    scores: z.record(z.string(), itemScore).meta({ description: 'By scorer name.' }),
    change: z.enum(['improved', 'regressed', 'unchanged']).nullable().meta({ description: 'Against the baseline’s same item, by the mean of the scorers both share; `null` without a baseline or a score.', example: 'improved' }),
  })
  .meta({ id: 'ExperimentResult' });

export const experimentResultListSchema = z
  .object({
    data: z.array(experimentResultSchema),
    hasMore: z.boolean(),
    nextCursor: z.string().optional().meta({ description: 'Pass as `after` for the next items.' }),
  })
  .meta({ id: 'ExperimentResultList' });
