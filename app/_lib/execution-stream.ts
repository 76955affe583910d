import { EXECUTION_EVENT_TYPES, isTerminalEvent, parseExecutionEvent, PAUSE_EVENT_TYPE, type ExecutionEvent } from '@/server/modules/executions/events';
import type { DashboardEnvironment } from './environment';

// Following an execution's events in the browser: the dashboard's stream endpoint
// (/api/dashboard/executions/:id/stream, the same Server-Sent Events as /v1) through
// EventSource, each event parsed with the server's own contract (server/modules/executions/events.ts).
// A dropped connection is resumed by EventSource itself, after the last event's id
// (`Last-Event-ID`); once it gives up (the stream was refused, or had nothing more to send:
// 204), `onClosed` is called and the caller reads the execution once instead.

export type { ExecutionEvent };
export { PAUSE_EVENT_TYPE };

/** `after`: the events after this sequence number only (the `id:` of an event seen before). */
export function streamUrl(executionId: string, environment: DashboardEnvironment, after = 0): string {
  return `/api/dashboard/executions/${encodeURIComponent(executionId)}/stream?environment=${environment}${after > 0 ? `&after=${after}` : ''}`;
}

/**
 * Opens the stream: `onEvent` for each event, in order, with its sequence number, until the
 * terminal one or a pause for approval (after which the stream is closed); `onClosed` when the
 * browser gave up before it. Returns the function that stops following (neither is called
 * after it). `after`: only the events after this sequence number.
 *
 * A pause (`tool.approval_requested`) may be one of the past: a stream opened from the start of
 * a run that was paused and resumed replays it, then goes on. It is not known which until the
 * execution is read, so the caller reads it and, when the run went on, follows again after the
 * pause's sequence number.
 */
export function followExecution(
  executionId: string,
  environment: DashboardEnvironment,
  on: { event: (event: ExecutionEvent, seq: number) => void; closed: () => void },
  after = 0,
): () => void {
  const source = new EventSource(streamUrl(executionId, environment, after));
  let open = true;
  const stop = () => {
    open = false;
    source.close();
  };
  const handle = (message: MessageEvent<string>) => {
    if (!open) return;
    const event = parseExecutionEvent(message.data);
    if (!event) return; // not an event of the contract (a newer server's?): skipped
    if (isTerminalEvent(event.type) || event.type === PAUSE_EVENT_TYPE) stop();
    on.event(event, /^\d+$/.test(message.lastEventId) ? Number(message.lastEventId) : 0);
  };
  for (const type of EXECUTION_EVENT_TYPES) source.addEventListener(type, handle as EventListener);
  source.onerror = () => {
    if (!open || source.readyState !== EventSource.CLOSED) return; // CONNECTING: it resumes by itself
    stop();
    on.closed();
  };
  return stop;
}
