import { sql } from 'drizzle-orm';
import { boolean, index, integer, json, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, textEnum, ts } from './columns';

import { EXECUTION_STATUSES, MESSAGE_ROLES } from './values';

export { EXECUTION_STATUSES, MESSAGE_ROLES, type ExecutionStatus, type MessageRole } from './values';
const status = textEnum('executions', 'status', EXECUTION_STATUSES);
const executionEnvironment = environmentColumn('executions');
const conversationEnvironment = environmentColumn('conversations');

/** What started an execution (`trigger`): a call of the API, the dashboard's playground, or a schedule's occurrence. */
export type ExecutionTrigger =
  | { type: 'api' }
  | { type: 'playground' }
  | { type: 'schedule'; scheduleId: string; scheduledFor: string }
  /** An experiment's item (docs/evals.md), or a judge scoring an answer for an experiment or an online rule. */
  | { type: 'experiment'; experimentId: string }
  | { type: 'judge'; executionId: string; experimentId?: string; ruleId?: string };

/** Who decided a tool call awaiting approval (docs/approvals.md): a key, a dashboard user, or the service (expiry). */
export type DecidedBy = { type: 'key'; id: string } | { type: 'user'; id: string } | { type: 'system' };

/** A person's decision on a tool call, as its step shows it (`steps[].toolCalls[].approval`). */
export interface StoredDecision {
  approved: boolean;
  reason: string | null;
  /** The arguments the call ran with (the model's, or the ones the decision gave). */
  arguments: unknown;
  decidedBy: DecidedBy;
  decidedAt: string;
  /** The span of the request that decided (its `traceparent`): the run's `approval_wait` span links to it (docs/traces.md). */
  trace?: { traceId: string; spanId: string };
}

/** One step of a run as the API shows it (`steps[]`): a model call, with its tool calls and results. */
export interface StoredStep {
  index: number;
  text: string;
  toolCalls: { id: string; name: string; arguments: unknown; approval?: StoredDecision }[];
  toolResults: { id: string; name: string; result: unknown; isError: boolean }[];
  finishReason: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  startedAt: string;
  completedAt: string;
}

/** A tool call of a paused step that needs a person's decision. */
export interface AwaitedCall {
  id: string;
  /** The tool's name as the model sees it. */
  tool: string;
  arguments: unknown;
  /** The JSON Schema edited arguments must match (the tool's parameters, or the MCP tool's input schema). */
  parameters: Record<string, unknown> | null;
  requestedAt: string;
  expiresAt: string;
  decision: StoredDecision | null;
}

/** What a run paused for approval resumes from: nothing of what ran before it runs again. */
export interface PausedRun {
  /** The step the calls belong to (its index in `steps`). */
  step: number;
  /** The assistant and tool messages of the run before the paused step's tool results. */
  messages: unknown[];
  /** Results of the paused step's calls that needed no approval (they ran before the pause). */
  results: { id: string; name: string; result: unknown; isError: boolean; invalid?: boolean }[];
  calls: AwaitedCall[];
  pausedAt: string;
}

/**
 * What a replay runs from (docs/traces.md, "Replay"): the original, the step it runs live from,
 * how its tools answer, its overrides, and what it takes of the original as recorded — the steps
 * before `fromStep` and, with `tools: "recorded"`, every tool call's result (copied when the
 * replay is created: the run reads nothing of the original).
 */
export interface ReplayPlan {
  executionId: string;
  fromStep: number;
  tools: 'recorded' | 'live';
  /** The instructions it runs with instead of the agent's (absent: the agent's). */
  instructions?: string;
  /** The steps before `fromStep`, as the original recorded them (no usage: they cost nothing here). */
  prefix: StoredStep[];
  /** `tools: "recorded"`: the original's tool calls, by tool and canonical JSON of the arguments, with their results. */
  recorded: { tool: string; arguments: string; result: unknown; isError: boolean }[];
}

export const executions = pgTable(
  'executions',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: executionEnvironment.column,
    agentId: text('agent_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    status: status.column.notNull(),
    input: text('input').notNull(),
    output: text('output'),
    // `json`, not `jsonb`: the API answers keys in the order we wrote them.
    steps: json('steps').$type<StoredStep[]>().notNull().default([]),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    model: text('model').notNull(),
    cached: boolean('cached').notNull().default(false),
    metadata: json('metadata').$type<Record<string, string>>().notNull().default({}),
    createdAt: ts('created_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    // The run's fence: each claim by a worker increments `attempt`; a worker writes only while
    // the row is `running` with its attempt. `heartbeatAt` is renewed while it runs: a stale one
    // means the worker died (→ failed/worker_lost, never re-sent to the model).
    attempt: integer('attempt').notNull().default(0),
    heartbeatAt: ts('heartbeat_at'),
    // The highest event sequence number handed out: while a worker runs the execution it
    // reserves numbers ahead of the events it has written (docs/executions.md), so a terminal
    // event written by anyone else (cancel, worker_lost) always sorts after every event sent.
    eventSeq: integer('event_seq').notNull().default(0),
    trigger: json('trigger').$type<ExecutionTrigger>().notNull().default({ type: 'api' }),
    // The schedule of a scheduled run (also in `trigger`): the `scheduleId` filter of the list.
    scheduleId: text('schedule_id'),
    // A queued turn (docs/executions.md, "Queued turns"): its place in the line it waits in, the
    // conversation's (`waiting_on` 'conversation') or a schedule's ('schedule'); null once it may
    // run. A waiting execution is `queued` to the API but no worker claims it: the end of the run
    // ahead of it hands it the line (status.ts, `finish`).
    waitingTurn: integer('waiting_turn'),
    waitingOn: text('waiting_on').$type<'conversation' | 'schedule'>(),
    // A run paused for approval (docs/approvals.md): what it resumes from (the calls awaiting a
    // decision, their decisions, the messages so far), kept from the pause until the run ends.
    approval: json('approval').$type<PausedRun>(),
    // The earliest `expiresAt` of its calls still awaiting a decision (the expiry sweep's index).
    approvalDueAt: ts('approval_due_at'),
    // The API key that started it (null: the playground, a schedule): what a budget on a key counts (docs/budgets-plan.md).
    keyId: text('key_id'),
    // Milliseconds spent in `requires_action`, summed over its pauses: left out of its duration.
    awaitedMs: integer('awaited_ms').notNull().default(0),
    // The trace the run belongs to (docs/traces.md): a caller's (`traceparent`), or null: its own, derived from its id.
    traceId: text('trace_id'),
    // The caller's span its root span is a child of (a `traceparent` it was started with).
    traceParentId: text('trace_parent_id'),
    // A replay of another execution (docs/traces.md, "Replay"): what it runs from; null for any other run.
    replay: json('replay').$type<ReplayPlan>(),
    // The version of its agent it runs (docs/versions.md); null for runs from before versions.
    agentVersion: integer('agent_version'),
    // This execute's structured output schema, instead of the agent's (docs/versions.md); null: the agent's.
    outputSchema: jsonb('output_schema').$type<Record<string, unknown>>(),
    // A structured answer, parsed (docs/versions.md, "Structured outputs"); null otherwise.
    outputJson: jsonb('output_json'),
    // What scorers said of its answer (docs/evals.md): an experiment's, or an online rule's; null: not scored.
    scores: jsonb('scores').$type<Record<string, { score: number | null; pass: boolean | null; reason: string }>>(),
  },
  (t) => [
    executionEnvironment.check(t.environment),
    status.check(t.status),
    index('executions_list_idx').on(t.workspaceId, t.environment, t.id),
    index('executions_agent_idx').on(t.workspaceId, t.environment, t.agentId, t.id),
    index('executions_status_idx').on(t.workspaceId, t.environment, t.status, t.id),
    index('executions_conversation_idx').on(t.workspaceId, t.environment, t.conversationId, t.id),
    index('executions_schedule_idx').on(t.workspaceId, t.environment, t.scheduleId, t.id).where(sql`${t.scheduleId} is not null`),
    index('executions_running_idx').on(t.heartbeatAt).where(sql`${t.status} = 'running'`),
    // The queue: the workspaces with queued runs (a skip scan) and each one's oldest (the fair claim).
    index('executions_queued_idx').on(t.workspaceId, t.environment, t.id).where(sql`${t.status} = 'queued' and ${t.waitingTurn} is null`),
    // The lines of queued turns: a conversation's, a schedule's.
    index('executions_waiting_conversation_idx').on(t.conversationId, t.waitingTurn).where(sql`${t.waitingTurn} is not null`),
    index('executions_waiting_schedule_idx').on(t.scheduleId, t.waitingTurn).where(sql`${t.waitingTurn} is not null`),
    index('executions_agent_active_idx').on(t.agentId).where(sql`${t.status} in ('queued', 'running', 'requires_action')`),
    // Runs awaiting a decision, by when their first pending call expires (the expiry sweep).
    index('executions_approval_due_idx').on(t.approvalDueAt).where(sql`${t.status} = 'requires_action'`),
  ],
);

/** The append-only event log of an execution (docs/api.md, "Executions"): SSE `id:` is `seq` (or within a pack, `seq`..`last_seq`). */
export const executionEvents = pgTable(
  'execution_events',
  {
    executionId: text('execution_id')
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    /** A pack of consecutive `text.delta` events (server/modules/executions/packs.ts): the last one's number; `data` is their data, an array. Null: one event. */
    lastSeq: integer('last_seq'),
    type: text('type').notNull(),
    data: json('data').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.executionId, t.seq] })],
);

export const conversations = pgTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: conversationEnvironment.column,
    agentId: text('agent_id').notNull(),
    // The queued or running execution holding the conversation (one at a time), else null.
    activeExecutionId: text('active_execution_id'),
    // Kept with every message written (executions/messages.ts), so a list page reads them from
    // its own rows instead of counting each conversation's messages.
    messageCount: integer('message_count').notNull().default(0),
    // The agent version its first turn ran: later turns run it too unless they name one (docs/versions.md).
    agentVersion: integer('agent_version'),
    lastMessageAt: ts('last_message_at').notNull().defaultNow(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    conversationEnvironment.check(t.environment),
    // GET /v1/conversations: one index per keyset (all, and by agent), so a page costs the same at any depth.
    index('conversations_list_idx').on(t.workspaceId, t.environment, t.id),
    index('conversations_agent_idx').on(t.workspaceId, t.environment, t.agentId, t.id),
  ],
);

const role = textEnum('messages', 'role', MESSAGE_ROLES);

export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    executionId: text('execution_id').notNull(),
    role: role.column.notNull(),
    content: text('content').notNull(),
    // What the model is sent back as history: the AI SDK message (tool calls and results included).
    modelMessage: jsonb('model_message').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [role.check(t.role), index('messages_conversation_idx').on(t.conversationId, t.id)],
);

/** Test-mode answers kept by request (docs/api.md, "Environments": `cached: true`). */
export const modelCache = pgTable('model_cache', {
  key: text('key').primaryKey(),
  output: text('output').notNull(),
  inputTokens: integer('input_tokens').notNull(),
  outputTokens: integer('output_tokens').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});
