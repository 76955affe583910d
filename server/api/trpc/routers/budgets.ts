import { budgetIdInput, budgetListSchema, budgetSchema, createBudgetInput, deletedBudgetSchema, listBudgetsInput, updateBudgetInput } from '../../../modules/budgets/schemas';
import { assertSafeBudgetInput, createBudget, deleteBudget, getBudget, listBudgets, updateBudget } from '../../../modules/budgets/service';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';

// /v1/budgets (docs/api.md, "Budgets"; docs/budgets.md): caps on what a workspace, an agent or a
// key spends. Writes need `budgets:manage` (not a default scope); reads take it or `analytics:read`.

const tags = ['Budgets'];

/** Checks on the raw input that zod cannot make, before it parses. */
const safeInput = apiProcedure.use(async ({ getRawInput, next }) => {
  assertSafeBudgetInput(await getRawInput().catch(() => undefined));
  return next();
});

export const budgetsRouter = router({
  create: safeInput
    .meta({
      scope: 'budgets:manage',
      successStatus: 201,
      errors: ['resource_not_found', 'budget_limit_reached'],
      openapi: {
        method: 'POST',
        path: '/v1/budgets',
        tags,
        summary: 'Create a budget',
        description:
          'Scope `budgets:manage`. Caps what the workspace, an agent or a key spends per day, week, month or in total, in USD or tokens. A `block` budget ' +
          'refuses runs once spent (402 `budget_exceeded`); `notify` only alerts. Its first period counts the target’s runs that ' +
          'already finished in it. At most 100 budgets per workspace and environment.',
        successDescription: 'The new budget, with what its period has spent so far',
      },
    })
    .input(createBudgetInput)
    .output(budgetSchema)
    .mutation(({ ctx, input }) => createBudget(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({
      scope: 'budgets:manage',
      alsoScope: 'analytics:read',
      errors: PAGE_ERRORS,
      openapi: { method: 'GET', path: '/v1/budgets', tags, summary: 'List budgets', description: 'Scope `budgets:manage` or `analytics:read`. Filters: `targetType`, `targetId`.', successDescription: 'Budgets of this workspace and environment, newest first' },
    })
    .input(listBudgetsInput)
    .output(budgetListSchema)
    .query(({ ctx, input }) => listBudgets(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope: 'budgets:manage',
      alsoScope: 'analytics:read',
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/budgets/{id}', tags, summary: 'Retrieve a budget', description: 'Scope `budgets:manage` or `analytics:read`.', successDescription: 'The budget, with its current period' },
    })
    .input(budgetIdInput)
    .output(budgetSchema)
    .query(({ ctx, input }) => getBudget(ctx.db, ctx.actor, input.id)),

  update: safeInput
    .meta({
      scope: 'budgets:manage',
      errors: ['resource_not_found'],
      openapi: {
        method: 'PATCH',
        path: '/v1/budgets/{id}',
        tags,
        summary: 'Update a budget',
        description: 'Changes the name, limit, thresholds, action or metadata. A new limit judges the current period again: raised above what was spent, the budget is `ok` again.',
        successDescription: 'The updated budget',
      },
    })
    .input(updateBudgetInput)
    .output(budgetSchema)
    .mutation(({ ctx, input: { id, ...fields } }) => updateBudget(ctx.db, ctx.actor, id, fields)),

  delete: apiProcedure
    .meta({
      scope: 'budgets:manage',
      errors: ['resource_not_found'],
      openapi: { method: 'DELETE', path: '/v1/budgets/{id}', tags, summary: 'Delete a budget', description: 'Its cap no longer applies, from the next model call of every run.', successDescription: 'The budget is deleted' },
    })
    .input(budgetIdInput)
    .output(deletedBudgetSchema)
    .mutation(({ ctx, input }) => deleteBudget(ctx.db, ctx.actor, input.id)),
});
