import { jsonb, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { executions } from './executions';
import { ts } from './columns';

/** The names of a run's spans (docs/traces.md). */
export const SPAN_NAMES = ['execution', 'model_call', 'tool_call', 'approval_wait', 'queue_wait'] as const;
export type SpanName = (typeof SPAN_NAMES)[number];

/** What a span records beyond its name and times (docs/traces.md): per kind, the facts its attributes are made of. */
export interface SpanData {
  /** The step (0-based) of a model call or a tool call. */
  step?: number;
  /** Model calls: the model asked for, milliseconds to the first token, tokens, the finish reason. */
  model?: string;
  firstTokenMs?: number | null;
  usage?: { inputTokens: number; outputTokens: number };
  finishReason?: string;
  /** Tool calls: the tool, the call's id, the MCP server (its tools), and the HTTP status or MCP error. */
  tool?: string;
  toolCallId?: string;
  server?: string;
  /** The tool as its MCP server lists it. */
  mcpTool?: string;
  httpStatus?: number;
  /** Approval waits: the spans of the requests that decided (their `traceparent`), as OpenTelemetry links. */
  links?: { traceId: string; spanId: string }[];
  /** Content (only when the agent sets `traceContent`): JSON text capped at 32 KB (docs/traces.md, "Content"). */
  system?: string;
  input?: string;
  output?: string;
}

// A run's spans (docs/traces.md): written with the statements a run already makes (its finish,
// its pause), kept as long as their execution. The trace id is the execution's (`trace_id`, or
// derived from its id); the root span's id is derived from the execution's id too.
export const executionSpans = pgTable(
  'execution_spans',
  {
    executionId: text('execution_id')
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    spanId: text('span_id').notNull(),
    parentId: text('parent_id'),
    name: text('name').$type<SpanName>().notNull(),
    startedAt: ts('started_at').notNull(),
    endedAt: ts('ended_at').notNull(),
    status: text('status').$type<'ok' | 'error'>().notNull(),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    data: jsonb('data').$type<SpanData>().notNull().default({}),
    // A model call's cost as usage analytics and the budgets price it (platform/prices.ts `callCost`): exact.
    costUsd: numeric('cost_usd'),
  },
  // The primary key serves the one read (a trace: its execution's spans, sorted in memory).
  (t) => [primaryKey({ columns: [t.executionId, t.spanId] })],
);
