'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { EVENT_TYPES } from '@/app/_lib/event-types';
import type { WebhookEventType } from '@/app/_lib/types';
import { TableSkeleton } from '../agents/agents-table';
import { useOpenSet } from '../disclosure';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { EmptyState, EventIcon, ListFooter, LoadError } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { EventItem } from './event-item';

const PAGE_SIZE = 25;

const SELECT =
  'block w-full rounded-md border-0 bg-white py-2 pr-8 pl-3 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

export function EventsView({ initialType }: { initialType: WebhookEventType | null }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const { environment } = useEnvironment();
  const [type, setType] = useState<WebhookEventType | null>(initialType);
  const { open, toggle } = useOpenSet();

  // The endpoints' URLs, to name the webhooks an event went to (at most 20 per environment).
  const webhooks = useQuery({ ...trpc.webhooks.list.queryOptions({ limit: 100 }), staleTime: 60_000 });
  const webhookUrls = useMemo(() => new Map((webhooks.data?.data ?? []).map((w) => [w.id, w.url])), [webhooks.data]);

  const list = useInfiniteQuery({
    queryKey: [...trpc.events.list.pathKey(), 'pages', type],
    queryFn: ({ pageParam, signal }) =>
      client.events.list.query({ limit: PAGE_SIZE, ...(type ? { type } : {}), ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const events = list.data?.pages.flatMap((p) => p.data) ?? [];

  function apply(next: WebhookEventType | null) {
    setType(next);
    router.replace(`/dashboard/events${next ? `?type=${next}` : ''}`, { scroll: false });
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Events</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Everything that happened in {environment === 'test' ? 'test' : 'live'} mode over the last 30 days, newest first: open an event to see
            its payload and where it was delivered. The same list is at <code className="font-mono text-xs">GET /v1/events</code>; test events
            are in their webhook’s delivery log only.
          </p>
        </div>
        <ButtonLink href="/dashboard/webhooks" variant="secondary" data-testid="events-webhooks-link">
          Webhooks
        </ButtonLink>
      </div>

      <div className="flex flex-wrap items-end gap-3" role="group" aria-label="Filters">
        <div className="min-w-0 space-y-1 max-sm:flex-1 sm:w-64">
          <label htmlFor="filter-type" className="block text-xs font-medium text-slate-600">
            Type
          </label>
          <select id="filter-type" className={SELECT} value={type ?? ''} onChange={(e) => apply((e.target.value || null) as WebhookEventType | null)} data-testid="filter-type">
            <option value="">All types</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <Button variant="secondary" onClick={() => void list.refetch()} disabled={list.isFetching} data-testid="events-refresh">
          {list.isFetching && !list.isPending ? <Spinner /> : null}
          Refresh
        </Button>
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading events" testId="events-loading" />
        ) : list.isError && events.length === 0 ? (
          <LoadError what="Events" error={list.error} onRetry={() => void list.refetch()} testId="events-error" />
        ) : events.length === 0 ? (
          type ? (
            <EmptyState icon={<EventIcon />} title={`No ${type} events`} action={<Button variant="secondary" onClick={() => apply(null)}>Show all types</Button>} testId="events-empty">
              None in the last 30 days.
            </EmptyState>
          ) : (
            <EmptyState
              icon={<EventIcon />}
              title="No events yet"
              action={
                // With an endpoint already set up, the next step is a change that sends an event.
                webhooks.isPending ? null : webhookUrls.size > 0 ? (
                  <ButtonLink href="/dashboard/agents/new">Create an agent</ButtonLink>
                ) : (
                  <ButtonLink href="/dashboard/webhooks">Set up a webhook</ButtonLink>
                )
              }
              testId="events-empty"
            >
              An event is recorded each time an execution starts or ends, an agent or key changes, or a conversation is deleted; webhooks
              receive the ones they subscribe to.
            </EmptyState>
          )
        ) : (
          <>
            <ul className="divide-y divide-slate-100" data-testid="events-list">
              {events.map((e) => (
                <EventItem key={e.id} event={e} now={list.dataUpdatedAt} open={open.has(e.id)} onToggle={() => toggle(e.id)} webhookUrls={webhookUrls} />
              ))}
            </ul>
            <ListFooter list={list} />
          </>
        )}
      </Card>
    </div>
  );
}
