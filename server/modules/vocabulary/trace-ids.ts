import { createHash } from 'node:crypto';

// The ids of a run's trace (docs/traces.md), on the ground floor: the engine shows the trace id
// on every execution, the traces module names the spans: W3C trace context's sizes (a 32-hex trace id, 16-hex
// span ids). Derived from the execution's id, so that every process and every attempt of a run
// (a resumed one, the sweeper, a cancel) names the same span the same way without asking anyone,
// and a span written twice is one row.

const hex = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The run's trace id: a caller's (`traceparent`, kept on the execution) or its own. */
export const traceIdOf = (row: { id: string; traceId: string | null }): string => row.traceId ?? hex(`trace:${row.id}`, 32);

/** The root span (`execution`). */
export const rootSpanId = (executionId: string): string => hex(`root:${executionId}`, 16);

/** The model call of a step. */
export const modelSpanId = (executionId: string, step: number): string => hex(`model:${executionId}:${step}`, 16);

/** A tool call (its id is the model's, unique in the run). */
export const toolSpanId = (executionId: string, toolCallId: string): string => hex(`tool:${executionId}:${toolCallId}`, 16);

/** The wait of a pause for approval, by when it began. */
export const approvalSpanId = (executionId: string, pausedAt: string): string => hex(`approval:${executionId}:${pausedAt}`, 16);

/** The time queued before the run first started. */
export const queueSpanId = (executionId: string): string => hex(`queue:${executionId}`, 16);

/** A caller's place in its trace, from a W3C `traceparent` header: its trace and its span (the run's root span's parent). */
export interface TraceParent {
  traceId: string;
  parentId: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * A W3C `traceparent` header (Trace Context level 1), or null when there is none or it is not
 * one: version `ff`, an all-zero trace or span id, upper-case hex, or version 00 with anything
 * after its flags. As the recommendation says, a header that does not parse starts a new trace
 * rather than failing the request.
 */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | null {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  if (value === undefined || value.length > 512) return null;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return null;
  const [, version, traceId, parentId, , rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return null;
  return { traceId: traceId!, parentId: parentId! };
}

/** The `traceparent` header naming a span of a run's trace (sampled). */
export const traceparent = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;
