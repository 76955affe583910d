import type { MemberRole } from '@/db/schema/values';
import type { DeliveryStatus, ExecutionStatus } from './types';

// What badges say, in people's words (issue 44, item 10): the API's values (`requires_action`,
// `tool-calls`) stay in the data attributes and the filters' query strings, never on a badge.

export const EXECUTION_STATUS_WORDS: Record<ExecutionStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  requires_action: 'Awaiting approval',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Why a model call ended (the AI SDK's finish reasons). */
const FINISH_REASON_WORDS: Record<string, string> = {
  stop: 'Answered',
  'tool-calls': 'Tool calls',
  length: 'Length limit reached',
  'content-filter': 'Content filtered',
  error: 'Error',
  other: 'Other',
  unknown: 'Unknown',
};

/** A finish reason in words; one the dashboard does not know yet is made readable ("tool-calls" → "Tool calls"). */
export function finishReasonWords(reason: string): string {
  return FINISH_REASON_WORDS[reason] ?? sentence(reason);
}

/** "requires_action" → "Requires action": a value with no words of its own, readable at least. */
export function sentence(value: string): string {
  const spaced = value.replace(/[_-]+/g, ' ').trim();
  return spaced ? spaced[0]!.toUpperCase() + spaced.slice(1) : value;
}

export const ROLE_WORDS: Record<MemberRole, string> = { owner: 'Owner', admin: 'Admin', developer: 'Developer', viewer: 'Viewer' };

export const MESSAGE_ROLE_WORDS = { user: 'User', assistant: 'Assistant', tool: 'Tool' } as const;

export const ENVIRONMENT_WORDS = { live: 'Live', test: 'Test' } as const;

export const DELIVERY_STATUS_WORDS: Record<DeliveryStatus, string> = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' };
