import { EVENT_TYPES, type EventType } from '@/server/modules/vocabulary/event-types';

// The event types a webhook can subscribe to (the server's list, so the form follows it), with
// a line for people; `webhook.test` is only ever sent on request.

export { EVENT_TYPES };

export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'execution.started': 'An execution began running',
  'execution.requires_action': 'An execution paused: a tool call awaits approval',
  'execution.succeeded': 'An execution finished with an answer',
  'execution.failed': 'An execution ended with an error',
  'execution.cancelled': 'An execution was cancelled',
  'agent.created': 'An agent was created',
  'agent.updated': 'An agent’s settings changed',
  'agent.deleted': 'An agent was deleted',
  'agent.label_moved': 'A label of an agent (production, staging…) moved to another version',
  'key.created': 'An API key was created',
  'key.revoked': 'An API key was revoked',
  'conversation.deleted': 'A conversation was deleted',
  'schedule.created': 'A schedule was created',
  'schedule.updated': 'A schedule’s settings changed (or it ended)',
  'schedule.deleted': 'A schedule was deleted (also with its agent)',
  'budget.threshold_reached': 'A budget’s spend reached one of its alert percentages',
  'budget.exceeded': 'A budget’s spend reached its limit (a blocking one now refuses runs)',
  'budget.reset': 'A new period began for a budget that was exceeded',
  'key.usage_spike': 'An API key’s requests in an hour jumped far above its usual rate',
  'experiment.completed': 'An experiment ended (succeeded, failed or cancelled), with its summary',
  'eval.score_dropped': 'An online scoring rule’s moving mean fell below its alert line',
};

/** "All events", or the types a webhook receives. */
export function eventsSummary(events: readonly string[]): string {
  if (events.includes('*')) return 'All events';
  return events.length === 1 ? '1 event type' : `${events.length} event types`;
}
