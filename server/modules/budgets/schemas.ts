import { z } from 'zod';
import { BUDGET_ACTIONS, BUDGET_PERIODS, ENVIRONMENTS } from '../../../db/schema/values';
import { metadataSchema } from '../../platform/metadata';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';

// Request and response shapes of /v1/budgets (docs/api.md, "Budgets"; how spend is counted and
// enforced: docs/budgets.md). zod checks shapes and bounds; service.ts checks the zone and the target.

/** Budgets one workspace may have per environment. */
export const MAX_BUDGETS = 100;
/** The largest USD limit, and the largest token limit. */
export const MAX_LIMIT_USD = 1_000_000;
export const MAX_LIMIT_TOKENS = 1_000_000_000_000;

const EXAMPLE_ID = 'bdg_01JD8X41B2C3D4E5F6G7H8J9K0';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });

const usd = z
  .string()
  .regex(/^\d{1,7}(\.\d{1,2})?$/, 'must be a decimal string in USD with at most 2 decimals, such as "25.00"')
  .refine((v) => Number(v) > 0 && Number(v) <= MAX_LIMIT_USD, `must be more than 0 and at most ${MAX_LIMIT_USD.toLocaleString('en-US')}`)
  .meta({ description: 'The cap in USD, as a decimal string (at most 2 decimals, up to 1,000,000).', example: '25.00' });

export const limitSchema = z
  .union([
    z.strictObject({ usd }),
    z.strictObject({
      tokens: z.int().min(1).max(MAX_LIMIT_TOKENS).meta({ description: 'The cap in tokens (input and output together).', example: 1_000_000 }),
    }),
  ])
  .meta({ id: 'BudgetLimit', description: 'Either `{usd: "25.00"}` (priced from the operator’s MODEL_PRICES) or `{tokens: 1000000}`.' });

export const targetSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('workspace') }),
    z.strictObject({ type: z.literal('agent'), id: z.string().max(100).meta({ example: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }) }),
    z.strictObject({ type: z.literal('key'), id: z.string().max(100).meta({ example: 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }) }),
  ])
  .meta({ id: 'BudgetTarget', description: 'What the budget counts: every run of the environment, one agent’s runs, or the runs one API key started.' });

const alertAt = z
  .array(z.int().min(1).max(1000))
  .max(10)
  .refine((a) => new Set(a).size === a.length, 'must not repeat a percentage')
  .meta({ description: 'Percentages of the limit that send `budget.threshold_reached` once per period (1–1000, at most 10). Default `[80, 100]`.', example: [80, 100] });

const fields = {
  name: z.string().trim().min(1).max(100).meta({ description: 'Shown in the dashboard, in refusals and in alerts (1–100 characters).', example: 'Monthly cap' }),
  period: z.enum(BUDGET_PERIODS).meta({
    description: 'The period spend is counted over: `day`, `week` (from Monday), `month` (from the 1st) start at local midnight in `timezone`; `total` never resets.',
    example: 'month',
  }),
  timezone: z.string().max(100).meta({ description: 'The IANA time zone periods start in, e.g. `Europe/Berlin`. Default: `UTC`.', example: 'Europe/Berlin' }),
  action: z.enum(BUDGET_ACTIONS).meta({
    description: '`block`: once spent, runs of its target are refused (402 `budget_exceeded`) and running ones stop before their next model call. `notify`: alerts only.',
    example: 'block',
  }),
};

export const createBudgetInput = z
  .strictObject({
    name: fields.name,
    target: targetSchema,
    limit: limitSchema,
    period: fields.period,
    timezone: fields.timezone.default('UTC'),
    alertAt: alertAt.default([80, 100]),
    action: fields.action,
    metadata: metadataSchema.default({}),
  })
  .meta({ id: 'CreateBudgetRequest' });

const budgetId = z.string().meta({ description: 'The id of the budget (`bdg_…`).', example: EXAMPLE_ID });
export const budgetIdInput = z.strictObject({ id: budgetId });

export const updateBudgetInput = z
  .strictObject({
    id: budgetId,
    name: fields.name.optional(),
    limit: limitSchema.optional(),
    alertAt: alertAt.optional(),
    action: fields.action.optional(),
    metadata: metadataSchema.optional().meta({ description: 'Replaces the whole metadata; `{}` removes it all.' }),
  })
  .meta({ description: 'The fields to change; the others keep their value. The target, period and zone cannot change: create another budget.' });

export const listBudgetsInput = z.strictObject({
  ...pageQuerySchema,
  targetType: z.enum(['workspace', 'agent', 'key']).meta({ description: 'Only budgets on this kind of target.' }).optional(),
  targetId: z.string().max(100).meta({ description: 'Only budgets on this agent or key.' }).optional(),
});

// ---- responses ----

export const budgetSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier (`bdg_…`).', example: EXAMPLE_ID }),
    name: z.string().meta({ example: 'Monthly cap' }),
    target: targetSchema,
    limit: limitSchema,
    period: z.enum(BUDGET_PERIODS).meta({ example: 'month' }),
    timezone: z.string().meta({ example: 'Europe/Berlin' }),
    alertAt: z.array(z.int()).meta({ example: [80, 100] }),
    action: z.enum(BUDGET_ACTIONS).meta({ example: 'block' }),
    metadata: z.object({}).catchall(z.string()).meta({ description: 'Your own key-value pairs.', example: {} }),
    spent: z
      .object({
        usd: z.string().meta({ description: 'Spent this period in USD (exact decimal; test mode and the sandbox cost 0).', example: '3.14' }),
        tokens: z.int().meta({ description: 'Tokens used this period (input and output).', example: 120_000 }),
        unpricedCalls: z.int().meta({ description: 'Live model calls this period whose model has no price: their cost is not in `usd`.', example: 0 }),
      })
      .meta({ description: 'What the target spent in the current period, runs in progress included (counted as each model call ends).' }),
    periodStart: timestamp.meta({ description: 'When the current period started (the epoch for `total`).' }),
    resetsAt: timestamp.nullable().meta({ description: 'When the next period starts; `null` for `total`.' }),
    status: z.enum(['ok', 'exceeded']).meta({ description: '`exceeded` once spent reaches the limit in this period.', example: 'ok' }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'live' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Budget' });

export const budgetListSchema = pageEnvelopeSchema(budgetSchema).meta({ id: 'BudgetList' });

export const deletedBudgetSchema = z
  .object({
    id: z.string().meta({ description: 'The id of the deleted budget.', example: EXAMPLE_ID }),
    deleted: z.literal(true).meta({ description: 'Always `true`.', example: true }),
  })
  .meta({ id: 'DeletedBudget' });
