import { z } from 'zod';
import { ENVIRONMENTS, EXECUTION_STATUSES, MESSAGE_ROLES } from '../../../db/schema/values';
import { metadataSchema } from '../../platform/metadata';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';

// Request and response shapes of executions and conversations (docs/api.md, "Executions" and
// "Conversations"). The descriptions and examples end up in /v1/openapi.json and the /docs
// reference.


/** Every `error.code` a failed execution can carry (the runner, the sweeper and the model registry produce only these). */
export const EXECUTION_ERROR_CODES = ['model_provider_unavailable', 'model_error', 'timeout', 'tool_error', 'max_steps_exceeded', 'max_tokens_exceeded', 'budget_exceeded', 'output_invalid', 'worker_lost'] as const;
export type ExecutionErrorCode = (typeof EXECUTION_ERROR_CODES)[number];

const EXAMPLE_EXECUTION = 'exe_01JD8X40A1B2C3D4E5F6G7H8J9';
const EXAMPLE_AGENT = 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
const EXAMPLE_CONVERSATION = 'conv_01JD8X40A0Z9Y8X7W6V5T4S3R2';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });
const metadata = metadataSchema;

export const executeInput = z.strictObject({
  input: z.string().min(1).max(100_000).meta({ description: 'The user message to run the agent on (1–100,000 characters).', example: 'What is the status of order 1042?' }),
  conversationId: z.string().optional().meta({
    description: 'Continue this conversation (its messages are sent as history). Omitted: a new conversation is started.',
    example: EXAMPLE_CONVERSATION,
  }),
  metadata: metadata.optional(),
  ifBusy: z.enum(['reject', 'enqueue']).optional().meta({
    description:
      'When `conversationId` has a queued or running execution: `reject` (default) answers 409 `conversation_busy`; `enqueue` creates ' +
      'this execution `queued` behind it and any turns already waiting, to run in order (at most 10 wait; beyond, 409). ' +
      '`wait` and `stream` then wait for its turn too.',
    example: 'enqueue',
  }),
  wait: z.boolean().optional().meta({ description: '`true`: answer 200 with the finished execution instead of 202 at once.', example: false }),
  stream: z.boolean().optional().meta({ description: '`true`: answer with a `text/event-stream` of the execution’s events.', example: false }),
  version: z.number().int().min(1).max(1_000_000_000).optional().meta({
    description: 'Run this version of the agent (docs/versions.md). Not with `label`. Default: the version `production` points at, or for a later turn of a conversation the version its first turn ran.',
    example: 3,
  }),
  label: z.string().max(40).optional().meta({ description: 'Run the version this label points at (`staging`…). Not with `version`.', example: 'staging' }),
  outputSchema: z
    .object({})
    .catchall(z.unknown())
    .optional()
    .meta({ description: 'The JSON Schema this run’s final answer must match, instead of the agent’s `outputSchema` (the same subset: docs/versions.md, "Structured outputs").' }),
});

const usage = z.object({
  inputTokens: z.number().int().meta({ example: 412 }),
  outputTokens: z.number().int().meta({ example: 57 }),
  totalTokens: z.number().int().meta({ example: 469 }),
});

const decidedBy = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('key'), id: z.string().meta({ example: 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }) }),
    z.object({ type: z.literal('user'), id: z.string().meta({ example: 'usr_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }) }),
    z.object({ type: z.literal('system') }),
  ])
  .meta({ id: 'DecidedBy', description: 'Who decided: an API key, a dashboard user, or the service (`system`: the call expired).' });

export const decisionSchema = z
  .object({
    approved: z.boolean(),
    reason: z.string().nullable().meta({ description: 'Why (a denial’s reason is given to the model); `"expired"` when nobody decided in time.' }),
    arguments: z.unknown().meta({ description: 'The arguments the call ran with: the model’s, or those the decision gave.' }),
    decidedBy,
    decidedAt: timestamp,
  })
  .meta({ id: 'ToolCallDecision' });

const step = z.object({
  index: z.number().int(),
  text: z.string().meta({ description: 'Text the model produced in this step.' }),
  toolCalls: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      arguments: z.unknown(),
      approval: decisionSchema.optional().meta({ description: 'Present on a call that needed approval and was decided.' }),
    }),
  ),
  toolResults: z.array(z.object({ id: z.string(), name: z.string(), result: z.unknown(), isError: z.boolean() })),
  finishReason: z.string().meta({ example: 'stop' }),
  usage,
  startedAt: timestamp,
  completedAt: timestamp,
}).meta({ id: 'ExecutionStep' });

const trigger = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('api') }),
    z.object({ type: z.literal('playground') }),
    z.object({
      type: z.literal('schedule'),
      scheduleId: z.string().meta({ example: 'sch_01JD8X41B2C3D4E5F6G7H8J9K0' }),
      scheduledFor: timestamp.meta({ description: 'The occurrence this run is for (it may start a little later).' }),
    }),
    z.object({ type: z.literal('experiment'), experimentId: z.string().meta({ example: 'exp_01JD8X41B2C3D4E5F6G7H8J9K0' }) }),
    z.object({
      type: z.literal('judge'),
      executionId: z.string().meta({ description: 'The execution whose answer it judged.', example: 'exe_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }),
      experimentId: z.string().optional().meta({ description: 'For an experiment’s item.', example: 'exp_01JD8X41B2C3D4E5F6G7H8J9K0' }),
      ruleId: z.string().optional().meta({ description: 'For an online scoring rule.', example: 'evr_01JD8X41B2C3D4E5F6G7H8J9K0' }),
    }),
  ])
  .meta({
    id: 'ExecutionTrigger',
    description:
      'What started it: a call of the API (`api`), a message in the dashboard’s playground (`playground`), an occurrence of a schedule (`schedule`), an item of an experiment (`experiment`), or an LLM judge scoring another execution’s answer (`judge`; docs/evals.md).',
    example: { type: 'api' },
  });

export const awaitedCallSchema = z
  .object({
    id: z.string().meta({ description: 'The tool call’s id (decide it by this `toolCallId`).', example: 'call_0f3c9a7d2b1e4c5a6b7d8e9f' }),
    tool: z.string().meta({ description: 'The tool’s name as the model called it.', example: 'refund_order' }),
    arguments: z.unknown().meta({ description: 'The arguments the model gave (JSON).', example: { orderId: '1042' } }),
    requestedAt: timestamp,
    expiresAt: timestamp.meta({ description: 'Still undecided then: denied as `"expired"` and the run goes on.' }),
  })
  .meta({ id: 'AwaitedToolCall' });

export const requiredActionSchema = z
  .object({
    type: z.literal('approve_tool_calls'),
    toolCalls: z.array(awaitedCallSchema).meta({ description: 'The calls still awaiting a decision.' }),
  })
  .meta({ id: 'RequiredAction', description: 'What the run waits for in `requires_action`; `null` in every other status.' });

export const executionSchema = z.object({
  id: z.string().meta({ description: 'Unique identifier (`exe_…`).', example: EXAMPLE_EXECUTION }),
  agentId: z.string().meta({ example: EXAMPLE_AGENT }),
  conversationId: z.string().meta({ description: 'The conversation this execution belongs to.', example: EXAMPLE_CONVERSATION }),
  status: z.enum(EXECUTION_STATUSES).meta({
    description:
      '`queued` → `running` → `succeeded` | `failed` | `cancelled` (also `queued` → `cancelled`). The last three never change. ' +
      '`requires_action`: paused until its tool calls are approved or denied (`POST /v1/executions/{id}/approvals`), then `queued` again.',
    example: 'succeeded',
  }),
  input: z.string(),
  output: z.string().nullable().meta({ description: 'The final answer; `null` until the execution succeeds.' }),
  requiredAction: requiredActionSchema.nullable(),
  steps: z.array(step).meta({ description: 'Each model call, with the tool calls it made and their results.' }),
  usage: usage.meta({ description: 'Tokens used by every model call of the execution.' }),
  error: z
    .object({
      code: z.string().meta({ example: 'timeout' }),
      message: z.string(),
    })
    .nullable()
    .meta({
      description: `Why it failed: ${EXECUTION_ERROR_CODES.map((c) => `\`${c}\``).join(', ')}. \`null\` otherwise.`,
    }),
  model: z.string().meta({ description: 'The model that ran (`provider/model`); test mode runs on `sandbox/…`.', example: 'sandbox/echo' }),
  cached: z.boolean().meta({ description: 'Test mode only: the answer was served from the cache of identical requests.' }),
  metadata,
  trigger,
  environment: z.enum(ENVIRONMENTS),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  completedAt: timestamp.nullable(),
  traceId: z.string().meta({ description: 'The trace of the run (32 hex digits, W3C trace context): its spans at `GET /v1/executions/{id}/trace`.', example: '4bf92f3577b34da6a3ce929d0e0e4736' }),
  agentVersion: z.number().int().nullable().meta({ description: 'The version of the agent it ran (docs/versions.md); `null` for runs from before versions.', example: 3 }),
  outputJson: z.unknown().meta({ description: 'With an output schema: the answer, parsed and valid against it (`output` holds its text); `null` otherwise.', example: null }),
  scores: z
    .record(z.string(), z.object({ score: z.number().nullable(), pass: z.boolean().nullable(), reason: z.string() }))
    .nullable()
    .meta({ description: 'What scorers said of its answer (docs/evals.md): an experiment’s or an online scoring rule’s, by scorer name; `null` until scored.', example: null }),
  replayOf: z
    .object({
      executionId: z.string().meta({ example: EXAMPLE_EXECUTION }),
      fromStep: z.number().int().meta({ description: 'The first step run live; the steps before it are the original’s, as recorded.', example: 1 }),
      tools: z.enum(['recorded', 'live']).meta({ description: '`recorded`: tool calls answered from the original’s results, no tool called; `live`: tools called for real.' }),
    })
    .nullable()
    .meta({ description: 'A replay (`POST /v1/executions/{id}/replay`): the execution it replays; `null` for any other run.' }),
}).meta({ id: 'Execution' });

/** The most steps a replay may take of its original (agents' `maxSteps` at most). */
export const MAX_REPLAY_STEP = 100;

export const replayInput = z.strictObject({
  fromStep: z
    .number()
    .int()
    .min(0)
    .max(MAX_REPLAY_STEP)
    .meta({ description: 'The step (a model call, `steps[].index`) to run live from; the steps before it are taken from the original as recorded: no model call, no tool call, no cost.', example: 1 }),
  input: executeInput.shape.input.optional().meta({ description: 'The user message instead of the original’s (1–100,000 characters).' }),
  instructions: z.string().max(32_000).optional().meta({ description: 'The system instructions instead of the agent’s (at most 32,000 characters; `""`: none).' }),
  model: z.string().max(200).optional().meta({ description: 'The model instead of the agent’s, as `provider/model`.', example: 'sandbox/echo' }),
  tools: z.enum(['recorded', 'live']).optional().meta({
    description:
      '`recorded` (default): a tool call whose tool and arguments equal one the original made gets its recorded result without the tool being called; any other call answers the model `{"error":"not_recorded"}`. `live`: tools are called for real (approval policies apply).',
    example: 'recorded',
  }),
  metadata: metadata.optional(),
  wait: executeInput.shape.wait,
  stream: executeInput.shape.stream,
});
export type ReplayInput = z.infer<typeof replayInput>;

export const executionListSchema = pageEnvelopeSchema(executionSchema).meta({ id: 'ExecutionList' });

export const listExecutionsInput = z.strictObject({
  ...pageQuerySchema,
  agentId: z.string().meta({ description: 'Only this agent’s executions.' }).optional(),
  status: z.enum(EXECUTION_STATUSES).meta({ description: 'Only executions in this status.' }).optional(),
  conversationId: z.string().meta({ description: 'Only this conversation’s executions.' }).optional(),
  scheduleId: z.string().meta({ description: 'Only the runs of this schedule.' }).optional(),
  agentVersion: z.coerce.number().int().min(1).max(1_000_000_000).meta({ description: 'Only the runs of this version of their agent (with `agentId`, of that agent).' }).optional(),
});

export const idInput = z.strictObject({ id: z.string().meta({ description: 'The resource id.' }) });

export const messageSchema = z.object({
  id: z.string().meta({ example: 'msg_01JD8X41B2C3D4E5F6G7H8J9K0' }),
  role: z.enum(MESSAGE_ROLES),
  content: z.string().meta({ description: 'The text; for `tool` messages, the tool’s result as JSON.' }),
  toolCalls: z
    .array(z.object({ id: z.string(), name: z.string(), arguments: z.unknown() }))
    .optional()
    .meta({ description: 'Assistant messages: the tools the model called.' }),
  toolCallId: z.string().optional().meta({ description: 'Tool messages: the call this is the result of.' }),
  executionId: z.string(),
  createdAt: timestamp,
}).meta({ id: 'Message' });

export const conversationSchema = z.object({
  id: z.string().meta({ example: EXAMPLE_CONVERSATION }),
  agentId: z.string().meta({ example: EXAMPLE_AGENT }),
  messages: z.array(messageSchema).meta({ description: 'User, assistant and tool messages in order.' }),
  createdAt: timestamp,
  updatedAt: timestamp,
}).meta({ id: 'Conversation' });

/** A conversation as GET /v1/conversations lists it: without its messages, with how many and the last one's time. */
export const conversationSummarySchema = z.object({
  id: z.string().meta({ example: EXAMPLE_CONVERSATION }),
  agentId: z.string().meta({ example: EXAMPLE_AGENT }),
  messageCount: z.number().int().meta({ description: 'How many messages (user, assistant and tool) it holds.', example: 4 }),
  lastMessageAt: z.string().meta({ format: 'date-time', description: 'When its last message was written.', example: '2026-11-21T20:31:09.456Z' }),
  createdAt: timestamp,
  updatedAt: timestamp,
}).meta({ id: 'ConversationSummary' });

export const conversationListSchema = pageEnvelopeSchema(conversationSummarySchema).meta({ id: 'ConversationList' });

export const listConversationsInput = z.strictObject({
  ...pageQuerySchema,
  agentId: z.string().meta({ description: 'Only this agent’s conversations.' }).optional(),
});

export const deletedConversationSchema = z.object({
  id: z.string().meta({ example: EXAMPLE_CONVERSATION }),
  deleted: z.literal(true),
}).meta({ id: 'DeletedConversation' });

export type ExecutionView = z.infer<typeof executionSchema>;
export type ConversationView = z.infer<typeof conversationSchema>;
export type ConversationSummaryView = z.infer<typeof conversationSummarySchema>;
export type MessageView = z.infer<typeof messageSchema>;
export type ExecuteInput = z.infer<typeof executeInput>;

// ---- approvals (docs/approvals.md) ----

/** Calls one request may decide (a step has at most 10 calls made; more are refused before). */
export const MAX_DECISIONS = 100;

export const decisionInput = z.strictObject({
  toolCallId: z.string().min(1).max(200).meta({ description: 'The `id` of a call in `requiredAction.toolCalls`.', example: 'call_0f3c9a7d2b1e4c5a6b7d8e9f' }),
  approve: z.boolean().meta({ description: '`true`: the call runs (once); `false`: the model is told it was denied, with `reason`.', example: true }),
  reason: z.string().max(1_000).optional().meta({ description: 'Why (≤ 1,000 characters); a denial’s reason is given to the model.', example: 'Refunds above 100 EUR need a manager' }),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: 'With `approve: true`: the arguments to run the call with instead of the model’s (checked against the tool’s parameters); the model is told these.' }),
});

export const decideInput = z.strictObject({
  decisions: z
    .array(decisionInput)
    .min(1)
    .max(MAX_DECISIONS)
    .meta({ description: `Decisions on the calls awaiting one (1–${MAX_DECISIONS}); the others may be decided by later requests. The run resumes once none is left.` }),
  wait: z.boolean().optional().meta({ description: '`true`: answer 200 with the execution once it is final or paused again.', example: false }),
  stream: z.boolean().optional().meta({ description: '`true`: answer with a `text/event-stream` of its events from these decisions on.', example: false }),
});
export type DecideInput = z.infer<typeof decideInput>;

