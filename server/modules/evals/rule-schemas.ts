import { z } from 'zod';
import { ENVIRONMENTS } from '../../../db/schema/values';
import { scorersSchema } from './scorer-schemas';

// Request and response shapes of /v1/agents/{id}/eval-rules (docs/evals.md, "Online scoring").

/** Rules one agent may have. */
export const MAX_RULES = 10;

const RULE_ID = 'evr_01JD8X41B2C3D4E5F6G7H8J9K0';
const AGENT_ID = 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });

const sampleRate = z.number().min(0).max(1).meta({ description: 'The share of the agent’s ended runs to score, 0–1 (`1`: every run).', example: 0.1 });
export const alertBelowSchema = z
  .strictObject({
    scorer: z.string().min(1).max(64).meta({ description: 'The name of one of the rule’s scorers.', example: 'helpful' }),
    mean: z.number().min(0).max(1).meta({ description: 'The line: `eval.score_dropped` fires once when the moving mean falls below it, and again only after it has recovered.', example: 0.7 }),
    window: z.int().min(1).max(1000).default(20).meta({ description: 'The moving mean is over this many last scored runs (1–1,000; default 20); no alert before that many are scored.', example: 20 }),
  })
  .meta({ id: 'EvalAlertBelow' });

const agentId = z.string().meta({ description: 'The agent (`agt_…`).', example: AGENT_ID });
const ruleId = z.string().meta({ description: 'The rule (`evr_…`).', example: RULE_ID });

export const createRuleInput = z.strictObject({ id: agentId, scorers: scorersSchema, sampleRate, alertBelow: alertBelowSchema.optional() }).meta({ id: 'CreateEvalRuleRequest' });
export const updateRuleInput = z
  .strictObject({ id: agentId, ruleId, scorers: scorersSchema.optional(), sampleRate: sampleRate.optional(), alertBelow: alertBelowSchema.nullable().optional() })
  .meta({ description: 'The fields to change; `alertBelow: null` removes the alert. Runs already sampled are scored by the rule as it is when they are scored.' });
export const ruleIdInput = z.strictObject({ id: agentId, ruleId });
export const listRulesInput = z.strictObject({ id: agentId });

export const ruleSchema = z
  .object({
    id: z.string().meta({ example: RULE_ID }),
    agentId: z.string().meta({ example: AGENT_ID }),
    scorers: z.array(z.record(z.string(), z.unknown())).meta({ description: 'Its scorers, each with its `name`.' }),
    sampleRate: z.number().meta({ example: 0.1 }),
    alertBelow: z.object({ scorer: z.string(), mean: z.number(), window: z.int() }).nullable().meta({ example: { scorer: 'helpful', mean: 0.7, window: 20 } }),
    alerting: z.boolean().meta({ description: 'The moving mean is below the line now (`eval.score_dropped` was sent).', example: false }),
    movingMean: z.number().nullable().meta({ description: 'The moving mean of `alertBelow.scorer` over the last `window` scored runs; `null` without an alert or before any run is scored.', example: 0.82 }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'live' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'EvalRule' });

export const ruleListSchema = z
  .object({ data: z.array(ruleSchema), hasMore: z.boolean().meta({ description: 'Always `false`: an agent has at most 10 rules.' }) })
  .meta({ id: 'EvalRuleList' });

export const deletedRuleSchema = z.object({ id: z.string().meta({ example: RULE_ID }), deleted: z.literal(true) }).meta({ id: 'DeletedEvalRule' });
