import { z } from 'zod';
import { awaitedCallSchema, decisionSchema, executionSchema } from './schemas';
import { TERMINAL_EVENT_TYPES, terminalEventType, type TerminalEventType } from '../vocabulary/statuses';

// The events of one execution (docs/api.md, "Executions"): what `stream: true`, GET
// /v1/executions/:id/stream and the dashboard's stream send, one Server-Sent Event each (`event:`
// is the type, `data:` the whole event as JSON), and what the event log stores (the type in its own
// column, the rest as the event's data). This union is the contract: the runner builds events with
// these types, the OpenAPI document describes them from it (components `ExecutionEvent` and one
// schema per type), and the dashboard and the tests parse with it.

const step = z.number().int().min(0).meta({ description: 'The model call (step) of the execution it belongs to, from 0.', example: 0 });
const toolCallId = z.string().meta({ description: 'Pairs a `tool.call` with its `tool.result`.', example: 'call_0' });
const toolName = z.string().meta({ description: 'The tool’s name.', example: 'lookup_order' });

/** An event carrying the whole execution as the API shows it then (started, or one of the terminal events). */
const withExecution = <T extends string>(type: T, id: string, description: string) =>
  z.object({ type: z.literal(type), execution: executionSchema }).meta({ id, description });

export const executionStartedEvent = withExecution('execution.started', 'ExecutionStartedEvent', 'The execution began running (the first event): the execution, `running`.');

export const textDeltaEvent = z
  .object({
    type: z.literal('text.delta'),
    delta: z.string().meta({ description: 'The next piece of the model’s text.', example: 'Hello' }),
    step,
  })
  .meta({ id: 'TextDeltaEvent', description: 'Text the model produced, as it arrives; joined in order per step they are the step’s text.' });

export const toolCallEvent = z
  .object({
    type: z.literal('tool.call'),
    toolCallId,
    name: toolName,
    arguments: z.unknown().meta({ description: 'The arguments the model gave (JSON).', example: { orderId: '1042' } }),
    step,
  })
  .meta({ id: 'ToolCallEvent', description: 'The model called a tool.' });

export const toolResultEvent = z
  .object({
    type: z.literal('tool.result'),
    toolCallId,
    name: toolName,
    result: z.unknown().meta({ description: 'What the tool answered (JSON), or `{"error": …}`.', example: { status: 'shipped' } }),
    isError: z.boolean().meta({ description: '`true`: the call failed (the error is the result the model sees).', example: false }),
    step,
  })
  .meta({ id: 'ToolResultEvent', description: 'A tool call’s result, sent back to the model.' });

export const approvalRequestedEvent = z
  .object({
    type: z.literal('tool.approval_requested'),
    toolCalls: z.array(awaitedCallSchema).meta({ description: 'The calls awaiting a decision.' }),
    step,
    execution: executionSchema,
  })
  .meta({
    id: 'ToolApprovalRequestedEvent',
    description: 'The run paused: these calls need a person’s decision (`POST /v1/executions/{id}/approvals`). The execution is `requires_action`; the stream ends after it.',
  });

export const approvalDecidedEvent = z
  .object({ type: z.literal('tool.approval_decided'), toolCallId, name: toolName, step })
  .extend(decisionSchema.shape)
  .meta({ id: 'ToolApprovalDecidedEvent', description: 'A call awaiting approval was approved or denied (by whom, with which arguments).' });

export const executionSucceededEvent = withExecution('execution.succeeded', 'ExecutionSucceededEvent', 'Terminal: the execution succeeded (the whole execution, with its output). The stream ends after it.');
export const executionFailedEvent = withExecution('execution.failed', 'ExecutionFailedEvent', 'Terminal: the execution failed (the whole execution, with its `error`). The stream ends after it.');
export const executionCancelledEvent = withExecution('execution.cancelled', 'ExecutionCancelledEvent', 'Terminal: the execution was cancelled. The stream ends after it.');

/** Every event of an execution, told apart by `type`. */
export const executionEventSchema = z
  .discriminatedUnion('type', [
    executionStartedEvent,
    textDeltaEvent,
    toolCallEvent,
    toolResultEvent,
    approvalRequestedEvent,
    approvalDecidedEvent,
    executionSucceededEvent,
    executionFailedEvent,
    executionCancelledEvent,
  ])
  .meta({ id: 'ExecutionEvent', description: 'The `data:` of one Server-Sent Event of an execution’s stream (its `event:` is the same `type`).' });

export type ExecutionEvent = z.infer<typeof executionEventSchema>;
export type ExecutionEventType = ExecutionEvent['type'];
/** An event of this type. */
export type EventOf<T extends ExecutionEventType> = Extract<ExecutionEvent, { type: T }>;
/** What an event carries besides its type (what the event log stores as its data). */
export type EventData<T extends ExecutionEventType> = Omit<EventOf<T>, 'type'>;

/** The types, in the order a run sends them (the started event first, the terminal ones last). */
export const EXECUTION_EVENT_TYPES = executionEventSchema.options.map((o) => o.shape.type.value) as readonly ExecutionEventType[];

// The terminal events are `execution.<final status>` (statuses.ts); each is an event of the contract.
export { TERMINAL_EVENT_TYPES, terminalEventType, type TerminalEventType };
type Holds<T extends true> = T;
/** A compile-time check: every terminal event type is an event type of the contract. */
export type TerminalEventsInContract = Holds<TerminalEventType extends ExecutionEventType ? true : false>;

/** The events a running worker records between the started and the terminal event. */
export type ProgressEventType = Exclude<ExecutionEventType, TerminalEventType | 'execution.started'>;

export const isTerminalEvent = (type: string): type is TerminalEventType => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);

/** The event a paused run's stream ends at (unless later events follow it: the run resumed). */
export const PAUSE_EVENT_TYPE = 'tool.approval_requested' as const satisfies ExecutionEventType;

/** An event as recorded: its type and the rest of it, typed together. */
export type RecordedEvent<T extends ExecutionEventType = ExecutionEventType> = { [K in T]: { type: K; data: EventData<K> } }[T];

/** Builds a recorded event (the type checks `data` against the contract). */
export const recordedEvent = <T extends ExecutionEventType>(type: T, data: EventData<T>) => ({ type, data }) as RecordedEvent<T>;

/** Parses the `data:` of a Server-Sent Event; null when it is not an event of the contract. */
export function parseExecutionEvent(data: string): ExecutionEvent | null {
  try {
    const parsed = executionEventSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
