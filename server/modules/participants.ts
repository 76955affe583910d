import { env } from '../platform/env.js';
import { approvalsParticipant } from './approvals/participant';
import { budgetsParticipant } from './budgets/participant';
import { eventsParticipant } from './events/participant';
import { evalsParticipant } from './evals/participant';
import { registerParticipants } from './executions/participants';
import { tracesParticipant } from './traces/participant';
import { usageParticipant } from './usage/participant';
import type { RunParticipant } from './vocabulary/participants';

// The run's participants (vocabulary/participants.ts), registered with the engine once per
// process by processes/boot.ts: budgets (the start's refusal, each call's guard and charge),
// usage records and the outbox (joined to the statements of the lifecycle's moments), approvals
// (the tool calls that wait for a person's decision), evals (the sampling of online scoring), traces
// (each call recorded in memory, written with the statement that ends the attempt).

export const RUN_PARTICIPANTS: readonly RunParticipant[] = [
  budgetsParticipant as RunParticipant,
  usageParticipant,
  eventsParticipant,
  approvalsParticipant,
  // Experiments' and judges' runs wake their driver; other runs are sampled for online scoring (docs/evals.md).
  evalsParticipant,
  // TRACES=off: no spans (what the benchmark compares against: docs/traces.md).
  ...(env.TRACES === 'on' ? [tracesParticipant] : []),
];

/** Registers the run's participants with the engine (idempotent). */
export const registerRunParticipants = (): void => registerParticipants(RUN_PARTICIPANTS);
