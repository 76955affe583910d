import type { DeliveryStatus, Webhook } from '@/app/_lib/types';
import { sentence } from '@/app/_lib/words';
import { Badge } from '../ui';

// How a webhook and its deliveries are doing, in the same words and colours everywhere:
// enabled green, paused slate, disabled by the server red; deliveries pending indigo
// (pulsing), succeeded green, failed red.

/** Why the server stopped sending to an endpoint, or null when it is enabled or paused by hand. */
export function disabledNote(webhook: Pick<Webhook, 'enabled' | 'disabledReason'>): string | null {
  if (webhook.enabled) return null;
  if (webhook.disabledReason === 'endpoint_gone') return 'Disabled: the endpoint answered 410 Gone';
  if (webhook.disabledReason === 'failing') return 'Disabled: every delivery failed for 5 days';
  return null;
}

export function WebhookStatusBadge({ webhook, className }: { webhook: Pick<Webhook, 'enabled' | 'disabledReason'>; className?: string }) {
  const note = disabledNote(webhook);
  return (
    <Badge
      tone={webhook.enabled ? 'green' : note ? 'red' : 'slate'}
      className={className}
      title={webhook.enabled ? 'Events are sent to this endpoint' : (note ?? 'Paused by hand: nothing is sent until it is enabled')}
      data-testid="webhook-status"
      data-enabled={webhook.enabled}
    >
      {webhook.enabled ? 'Enabled' : 'Disabled'}
    </Badge>
  );
}

const DELIVERY_TONE = { pending: 'indigo', succeeded: 'green', failed: 'red' } as const;

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  return (
    <Badge tone={DELIVERY_TONE[status]} data-testid="delivery-status" data-status={status}>
      {status === 'pending' && <span aria-hidden className="mr-1.5 inline-block size-1.5 animate-pulse rounded-full bg-current" />}
      {sentence(status)}
    </Badge>
  );
}

/** The event types of a webhook as badges ("All events" for `*`), at most `max` of them. */
export function EventBadges({ events, max = 3 }: { events: readonly string[]; max?: number }) {
  if (events.includes('*')) return <Badge tone="indigo">All events</Badge>;
  return (
    <span className="flex flex-wrap gap-1">
      {events.slice(0, max).map((t) => (
        <Badge key={t} className="font-mono">
          {t}
        </Badge>
      ))}
      {events.length > max && <Badge title={events.slice(max).join(', ')}>+{events.length - max}</Badge>}
    </span>
  );
}
