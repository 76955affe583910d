import type { RunParticipant } from '../vocabulary/participants';
import { terminalEventType, type FinalStatus } from '../vocabulary/statuses';
import { outboxEvent } from './emit';

// The outbox's part in a run (docs/webhooks.md), through the run-participant contract
// (vocabulary/participants.ts): `execution.started`, the final event (`execution.succeeded`,
// `.failed`, `.cancelled`) and `execution.requires_action`, each written by the statement that
// records the change, so the event exists exactly when the change does.

export const eventsParticipant: RunParticipant = {
  name: 'events',
  at(moment, row, view) {
    // A run resumed after its pause for approval starts again on its stream, not as a new run for webhooks.
    if (moment === 'started' && row.approval) return undefined;
    const type = moment === 'started' ? 'execution.started' : moment === 'paused' ? 'execution.requires_action' : terminalEventType(row.status as FinalStatus);
    const outbox = outboxEvent(row, type, view);
    return { writes: [outbox.insert], signals: [outbox.signal] };
  },
};
