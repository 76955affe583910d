import { EXECUTION_EVENT_TYPES, isTerminalEvent, parseExecutionEvent, type ExecutionEvent } from '@/server/modules/executions/events';
import type { DashboardEnvironment } from './environment';

// Following an execution's events in the browser: the dashboard's stream endpoint
// (/api/dashboard/executions/:id/stream, the same Server-Sent Events as /v1) through
// EventSource, each event parsed with the server's own contract (server/modules/executions/events.ts).
// A dropped connection is resumed by EventSource itself, after the last event's id
// (`Last-Event-ID`); once it gives up (the stream was refused, or had nothing more to send:
// 204), `onClosed` is called and the caller reads the execution once instead.

export type { ExecutionEvent };

export function streamUrl(executionId: string, environment: DashboardEnvironment): string {
  return `/api/dashboard/executions/${encodeURIComponent(executionId)}/stream?environment=${environment}`;
}

/**
 * Opens the stream: `onEvent` for each event, in order, until the terminal one (after which the
 * stream is closed); `onClosed` when the browser gave up before it. Returns the function that
 * stops following (neither is called after it).
 */
export function followExecution(
  executionId: string,
  environment: DashboardEnvironment,
  on: { event: (event: ExecutionEvent) => void; closed: () => void },
): () => void {
  const source = new EventSource(streamUrl(executionId, environment));
  let open = true;
  const stop = () => {
    open = false;
    source.close();
  };
  const handle = (message: MessageEvent<string>) => {
    if (!open) return;
    const event = parseExecutionEvent(message.data);
    if (!event) return; // not an event of the contract (a newer server's?): skipped
    if (isTerminalEvent(event.type)) stop();
    on.event(event);
  };
  for (const type of EXECUTION_EVENT_TYPES) source.addEventListener(type, handle as EventListener);
  source.onerror = () => {
    if (!open || source.readyState !== EventSource.CLOSED) return; // CONNECTING: it resumes by itself
    stop();
    on.closed();
  };
  return stop;
}
