import { z } from 'zod';
import { SPAN_NAMES } from '../../../db/schema/traces';

// A run's trace as the API shows it (docs/traces.md): `GET /v1/executions/{id}/trace`.

const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-29T10:31:07.123Z' });
const attribute = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

export const spanSchema = z
  .object({
    id: z.string().meta({ description: 'The span id (16 hex digits).', example: '00f067aa0ba902b7' }),
    parentId: z.string().nullable().meta({ description: 'The parent span (`null` for the root, `execution`).' }),
    name: z.enum(SPAN_NAMES).meta({
      description:
        '`execution` (the root: created → final), `queue_wait` (created → started), `model_call` (one per step), `tool_call` (under its step’s model call), `approval_wait` (a pause → its last decision).',
    }),
    kind: z.enum(['internal', 'client']).meta({ description: 'OpenTelemetry’s span kind: `client` for calls out (models, tools), `internal` otherwise.' }),
    startedAt: timestamp,
    endedAt: timestamp,
    durationMs: z.number().int(),
    status: z.enum(['ok', 'error']),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    attributes: z.record(z.string(), attribute).meta({
      description: 'OpenTelemetry GenAI semantic-convention attributes (`gen_ai.*`, v1.37.0) and the service’s own (`aas.*`).',
    }),
    firstTokenMs: z.number().int().nullable().optional().meta({ description: 'Model calls: milliseconds from the call to its first token.' }),
    usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }).optional().meta({ description: 'Model calls (and the root, their sum): tokens.' }),
    cost: z
      .object({ usd: z.string().nullable() })
      .optional()
      .meta({ description: 'Model calls (and the root, their sum): the cost as usage analytics and budgets count it (a decimal string; `null` for a live model with no price).' }),
    finishReason: z.string().optional(),
    tool: z.string().optional().meta({ description: 'Tool calls: the tool’s name.' }),
    toolCallId: z.string().optional(),
    httpStatus: z.number().int().optional().meta({ description: 'HTTP tool calls: the status the endpoint answered.' }),
    server: z.string().optional().meta({ description: 'MCP tool calls: the MCP server (its name on the agent).' }),
    links: z
      .array(z.object({ traceId: z.string(), spanId: z.string() }))
      .optional()
      .meta({ description: 'Approval waits: the spans of the decisions’ requests that carried a `traceparent` (OpenTelemetry span links).' }),
  })
  .meta({ id: 'Span' });

export const traceSchema = z
  .object({
    traceId: z.string().meta({ description: 'The trace id (32 hex digits).', example: '4bf92f3577b34da6a3ce929d0e0e4736' }),
    executionId: z.string(),
    spans: z.array(spanSchema).meta({ description: 'In start order; complete once the execution is final; while it runs, the spans that have ended (the root and the queue’s come with the end).' }),
    scores: z
      .record(z.string(), z.object({ score: z.number().nullable(), pass: z.boolean().nullable(), reason: z.string() }))
      .nullable()
      .meta({ description: 'What scorers said of the run, by scorer name (an experiment’s or an online rule’s, docs/evals.md); `null` until scored.', example: null }),
  })
  .meta({ id: 'Trace' });

export type SpanView = z.infer<typeof spanSchema>;
export type TraceView = z.infer<typeof traceSchema>;
