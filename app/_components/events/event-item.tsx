'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { errorMessage } from '@/app/_lib/errors';
import { formatDuration } from '@/app/_lib/format';
import type { WebhookEvent } from '@/app/_lib/types';
import { DisclosureButton, ROW_TOGGLE } from '../disclosure';
import { JsonBlock } from '../executions/json-block';
import { useTRPC } from '../providers';
import { Spinner } from '../ui';
import { When } from '../when';
import { StatusCode } from '../webhooks/delivery-item';
import { DeliveryStatusBadge } from '../webhooks/status';

/** How often an open event's deliveries refresh while one is pending. */
const LIVE_MS = 2_000;

// The deliveries of one event, to every webhook it went to (loaded when the event is opened).
function EventDeliveries({ eventId, webhookUrls }: { eventId: string; webhookUrls: ReadonlyMap<string, string> }) {
  const trpc = useTRPC();
  const deliveries = useQuery({
    ...trpc.events.deliveries.queryOptions({ id: eventId }),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'pending') ? LIVE_MS : false),
  });

  if (deliveries.isPending) {
    return (
      <p className="flex items-center gap-2 text-xs text-slate-500">
        <Spinner className="size-3" /> Loading deliveries…
      </p>
    );
  }
  if (deliveries.isError) return <p className="text-xs text-red-600">{errorMessage(deliveries.error)}</p>;
  if (deliveries.data.length === 0) {
    return <p className="text-xs text-slate-500" data-testid="event-no-deliveries">No webhook was subscribed to this event: it was not sent anywhere.</p>;
  }
  return (
    <ul className="divide-y divide-slate-100 rounded-md ring-1 ring-slate-200">
      {deliveries.data.map((d) => {
        const last = d.attempts.at(-1);
        const url = webhookUrls.get(d.webhookId);
        return (
          <li key={d.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-xs" data-testid="event-delivery" data-status={d.status}>
            <DeliveryStatusBadge status={d.status} />
            <Link
              href={`/dashboard/webhooks/${d.webhookId}`}
              className="min-w-0 flex-1 basis-40 truncate font-mono text-indigo-600 hover:text-indigo-500"
              title={url ?? d.webhookId}
            >
              {url ?? d.webhookId}
            </Link>
            <span className="whitespace-nowrap text-slate-600">
              {last ? <StatusCode code={last.statusCode} /> : 'not sent yet'}
              {last && ` · ${formatDuration(last.latencyMs)}`} · {d.attempts.length === 1 ? '1 attempt' : `${d.attempts.length} attempts`}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

export function EventItem({
  event: e,
  now,
  open,
  onToggle,
  webhookUrls,
}: {
  event: WebhookEvent;
  now: number;
  open: boolean;
  onToggle: () => void;
  webhookUrls: ReadonlyMap<string, string>;
}) {
  const panelId = `event-${e.id}`;
  return (
    <li data-testid="event-row" data-event-id={e.id} data-type={e.type}>
      <DisclosureButton
        open={open}
        controls={panelId}
        onToggle={onToggle}
        className={ROW_TOGGLE}
        testId="event-toggle"
      >
        <span className="min-w-0 flex-1">
          <code className="block font-mono text-sm font-medium break-all text-slate-900" data-testid="event-type">
            {e.type}
          </code>
          <code className="mt-1 block truncate font-mono text-xs text-slate-500" data-testid="event-id">
            {e.id}
          </code>
        </span>
        <When iso={e.createdAt} now={now} className="shrink-0 text-xs whitespace-nowrap text-slate-500" />
      </DisclosureButton>
      {open && (
        <div id={panelId} className="space-y-4 px-4 pb-4 sm:pr-5 sm:pl-11" data-testid="event-details">
          <div className="space-y-1.5">
            <p className="text-xs font-medium text-slate-500">Deliveries</p>
            <EventDeliveries eventId={e.id} webhookUrls={webhookUrls} />
          </div>
          <JsonBlock value={e} label="Payload (the body each webhook receives)" testId="event-payload" />
        </div>
      )}
    </li>
  );
}
