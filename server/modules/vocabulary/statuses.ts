// The states of an execution, and the one place that says which of them are final
// (docs/executions.md, "Lifecycle"). Every other list derives from these: the terminal event
// types, the webhook event types, the usage filters, the dashboard's badge, the ticker's "still
// active" test. It imports only the column's values (no drizzle), so the dashboard reads it in the
// browser too.
import { EXECUTION_STATUSES, type ExecutionStatus } from '../../../db/schema/values';

/** Every status, in the order a run goes through them (the column's values). */
export { EXECUTION_STATUSES, type ExecutionStatus };

/** The statuses a run ends in: it never leaves one, and each has exactly one terminal event. */
export const FINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const satisfies readonly ExecutionStatus[];
export type FinalStatus = (typeof FINAL_STATUSES)[number];
export type ActiveStatus = Exclude<ExecutionStatus, FinalStatus>;

export const isFinal = (status: ExecutionStatus): status is FinalStatus => (FINAL_STATUSES as readonly string[]).includes(status);
export const isActive = (status: ExecutionStatus): status is ActiveStatus => !isFinal(status);

/** The statuses of a run still under way (queued, running, or paused for approval). */
export const ACTIVE_STATUSES = EXECUTION_STATUSES.filter(isActive) as readonly ActiveStatus[];

/**
 * Where a run waits for a person (docs/approvals.md): it holds no worker, no slot of its
 * workspace's concurrency, only its rows. Its stream ends and `wait` answers, as at a final status.
 */
export const PAUSED_STATUS = 'requires_action' as const satisfies ExecutionStatus;

/** A status a `wait` answers at and a stream ends at: final, or paused for approval. */
export const isSettled = (status: ExecutionStatus): boolean => isFinal(status) || status === PAUSED_STATUS;

/** Where each status may go next; a final status goes nowhere. */
export const TRANSITIONS: { readonly [S in ExecutionStatus]: readonly ExecutionStatus[] } = {
  queued: ['running', 'cancelled'],
  running: ['requires_action', 'succeeded', 'failed', 'cancelled'],
  // Every call decided: queued again (a worker claims it and resumes); or cancelled while it waits.
  requires_action: ['queued', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

/** The statuses a run is inserted in: queued, or running when it starts at once in place. */
export const INITIAL_STATUSES = ['queued', 'running'] as const satisfies readonly ExecutionStatus[];
export type InitialStatus = (typeof INITIAL_STATUSES)[number];

/**
 * A write that moves a run to `to` from any of `from` (the statuses its `where` admits), checked
 * against TRANSITIONS: one that could make a move TRANSITIONS forbids throws before it is sent.
 * Every statement that changes `status` takes its condition from one (executions/lifecycle.ts,
 * pause.ts), so the table is the code's rule, not only its test's.
 */
export function move<To extends ExecutionStatus>(from: readonly ExecutionStatus[], to: To): { readonly from: readonly ExecutionStatus[]; readonly to: To } {
  for (const status of from) {
    if (!TRANSITIONS[status].includes(to)) throw new Error(`An execution never goes from ${status} to ${to} (statuses.ts TRANSITIONS)`);
  }
  return { from, to };
}

/** The terminal event of a final status: `execution.<status>`. */
export type TerminalEventType = `execution.${FinalStatus}`;
export const terminalEventType = (status: FinalStatus): TerminalEventType => `execution.${status}`;

/** The events that end a stream: exactly one of them, last, carrying the finished execution. */
export const TERMINAL_EVENT_TYPES = FINAL_STATUSES.map(terminalEventType) as readonly TerminalEventType[];
