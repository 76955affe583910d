import { cancelExecution } from '../../../modules/executions/service';
import {
  createExperimentInput,
  experimentIdInput,
  experimentListSchema,
  experimentResultListSchema,
  experimentSchema,
  listExperimentsInput,
  listResultsInput,
} from '../../../modules/evals/experiment-schemas';
import { cancelExperiment, createExperiment, getExperiment, listExperiments, listResults } from '../../../modules/evals/experiments';
import { assertSafeScorerKeys } from '../../../modules/evals/scorer-schemas';
import { createRule, deleteRule, listRules, updateRule } from '../../../modules/evals/rules';
import { createRuleInput, deletedRuleSchema, listRulesInput, ruleIdInput, ruleListSchema, ruleSchema, updateRuleInput } from '../../../modules/evals/rule-schemas';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';

// /v1/experiments and /v1/agents/{id}/eval-rules (docs/evals.md): writes need `evals:manage`
// (not a default scope), reads take it or `agents:read`.

const tags = ['Evals'];
const WRITE = { scope: 'evals:manage' } as const;
const READ = { scope: 'evals:manage', alsoScope: 'agents:read' } as const;

/** A `__proto__` key in a scorer (its arguments, its schema) is gone once zod parsed it: checked raw. */
const safeScorers = apiProcedure.use(async ({ getRawInput, next }) => {
  const raw = (await getRawInput().catch(() => undefined)) as { scorers?: unknown } | undefined;
  assertSafeScorerKeys(raw && typeof raw === 'object' ? raw.scorers : undefined);
  return next();
});

export const experimentsRouter = router({
  create: safeScorers
    .meta({
      ...WRITE,
      successStatus: 201,
      errors: ['resource_not_found', 'parameter_conflict', 'experiment_limit_reached'],
      openapi: {
        method: 'POST',
        path: '/v1/experiments',
        tags,
        summary: 'Start an experiment',
        description:
          'Scope `evals:manage`. Runs every item of the dataset (as it is now) × `trials` through one version of the agent, in the key’s environment, at most `concurrency` at once and within the workspace’s limits and budgets, and scores each answer. A job: it survives restarts; follow `progress`, or subscribe to `experiment.completed`. At most 10 experiments queued or running at once per workspace and environment.',
        successDescription: 'The experiment, queued',
      },
    })
    .input(createExperimentInput)
    .output(experimentSchema)
    .mutation(({ ctx, input }) => createExperiment(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({ ...READ, errors: PAGE_ERRORS, openapi: { method: 'GET', path: '/v1/experiments', tags, summary: 'List experiments', description: 'Scope `evals:manage` or `agents:read`. Filters: `agentId`, `datasetId`.', successDescription: 'Experiments, newest first' } })
    .input(listExperimentsInput)
    .output(experimentListSchema)
    .query(({ ctx, input }) => listExperiments(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({ ...READ, errors: ['resource_not_found'], openapi: { method: 'GET', path: '/v1/experiments/{id}', tags, summary: 'Retrieve an experiment', description: 'Scope `evals:manage` or `agents:read`. Its progress, and once ended its summary (and comparison with the baseline).', successDescription: 'The experiment' } })
    .input(experimentIdInput)
    .output(experimentSchema)
    .query(({ ctx, input }) => getExperiment(ctx.db, ctx.actor, input.id)),

  cancel: apiProcedure
    .meta({
      ...WRITE,
      errors: ['resource_not_found', 'experiment_not_cancellable'],
      openapi: { method: 'POST', path: '/v1/experiments/{id}/cancel', tags, summary: 'Cancel an experiment', description: 'No run starts from now on and the runs under way are cancelled; what was scored keeps its scores.', successDescription: 'The experiment, cancelled' },
    })
    .input(experimentIdInput)
    .output(experimentSchema)
    .mutation(({ ctx, input }) =>
      cancelExperiment(ctx.db, ctx.actor, input.id, async (ids) => {
        for (const id of ids) await cancelExecution(ctx.db, ctx.actor, id).catch(() => undefined);
      }),
    ),

  results: apiProcedure
    .meta({
      ...READ,
      errors: ['resource_not_found', 'invalid_cursor'],
      openapi: { method: 'GET', path: '/v1/experiments/{id}/results', tags, summary: 'List an experiment’s results', description: 'By item, in the dataset’s order: its trials’ executions and outputs, its scores by scorer, and its change against the baseline.', successDescription: 'A page of items' },
    })
    .input(listResultsInput)
    .output(experimentResultListSchema)
    .query(({ ctx, input: { id, ...page } }) => listResults(ctx.db, ctx.actor, id, page)),
});

export const evalRulesRouter = router({
  create: safeScorers
    .meta({
      ...WRITE,
      successStatus: 201,
      errors: ['resource_not_found'],
      openapi: {
        method: 'POST',
        path: '/v1/agents/{id}/eval-rules',
        tags,
        summary: 'Score a sample of an agent’s runs',
        description:
          'Scope `evals:manage`. Scores `sampleRate` of the agent’s ended runs after they end (never delaying them); the scores are on each execution and its trace. With `alertBelow`, `eval.score_dropped` fires once when the moving mean falls below the line, and again only after it recovered. At most 10 rules an agent.',
        successDescription: 'The rule',
      },
    })
    .input(createRuleInput)
    .output(ruleSchema)
    .mutation(({ ctx, input }) => createRule(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({ ...READ, errors: ['resource_not_found'], openapi: { method: 'GET', path: '/v1/agents/{id}/eval-rules', tags, summary: 'List an agent’s scoring rules', successDescription: 'Its rules, with their moving means' } })
    .input(listRulesInput)
    .output(ruleListSchema)
    .query(({ ctx, input }) => listRules(ctx.db, ctx.actor, input.id)),

  update: safeScorers
    .meta({ ...WRITE, errors: ['resource_not_found'], openapi: { method: 'PATCH', path: '/v1/agents/{id}/eval-rules/{ruleId}', tags, summary: 'Update a scoring rule', successDescription: 'The rule' } })
    .input(updateRuleInput)
    .output(ruleSchema)
    .mutation(({ ctx, input }) => updateRule(ctx.db, ctx.actor, input)),

  delete: apiProcedure
    .meta({ ...WRITE, errors: ['resource_not_found'], openapi: { method: 'DELETE', path: '/v1/agents/{id}/eval-rules/{ruleId}', tags, summary: 'Delete a scoring rule', description: 'Runs it sampled and has not scored yet are not scored.', successDescription: 'The deleted rule’s id' } })
    .input(ruleIdInput)
    .output(deletedRuleSchema)
    .mutation(({ ctx, input }) => deleteRule(ctx.db, ctx.actor, input.id, input.ruleId)),
});
