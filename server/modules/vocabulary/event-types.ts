import { TERMINAL_EVENT_TYPES } from './statuses';

// The event types of docs/webhooks.md ("The contract"), the ones a webhook can subscribe to (or
// `*`: all of them).
// `webhook.test` is sent to one webhook on request ("send test event") and cannot be subscribed to.
// An execution's events are its start, each pause for approval, and one per final status (statuses.ts).
export const EVENT_TYPES = [
  'execution.started',
  'execution.requires_action',
  ...TERMINAL_EVENT_TYPES,
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'agent.label_moved',
  'key.created',
  'key.revoked',
  'conversation.deleted',
  'schedule.created',
  'schedule.updated',
  'schedule.deleted',
  'budget.threshold_reached',
  'budget.exceeded',
  'budget.reset',
  'key.usage_spike',
  'experiment.completed',
  'eval.score_dropped',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = 'webhook.test';
/** Every type an event can have (what `GET /v1/events?type=` accepts). */
export const ALL_EVENT_TYPES = [...EVENT_TYPES, TEST_EVENT_TYPE] as const;
export type AnyEventType = (typeof ALL_EVENT_TYPES)[number];

/** Events are kept this long (`GET /v1/events`); maintenance deletes older ones with their deliveries. */
export const EVENT_RETENTION_DAYS = 30;
