'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Delivery, DeliveryStatus } from '@/app/_lib/types';
import { useOpenSet } from '../disclosure';
import { useTRPC, useTRPCClient } from '../providers';
import { ListFooter, LoadError } from '../states';
import { Card, Spinner } from '../ui';
import { DeliveryItem } from './delivery-item';
import { DELIVERY_STATUSES } from './status';

const PAGE_SIZE = 20;
/** How often the log refreshes while a delivery is pending, or one is awaited. */
const LIVE_MS = 2_000;
/** How long a sent test event's delivery is waited for before the log stops polling. */
const AWAIT_MS = 30_000;

const SELECT =
  'block rounded-md border-0 bg-white py-1.5 pr-8 pl-3 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

/** An event just sent (test or resend) and when: the log polls until its delivery shows up. */
export interface Awaited {
  eventId: string;
  since: number;
}

/** Whether the log should keep refreshing: a delivery is pending, or the awaited one has not shown up yet (as of `at`). */
function isLive(deliveries: readonly Delivery[], awaited: Awaited | null, at: number): boolean {
  if (deliveries.some((d) => d.status === 'pending')) return true;
  return awaited !== null && !deliveries.some((d) => d.eventId === awaited.eventId) && at - awaited.since < AWAIT_MS;
}

export function DeliveriesLog({ webhookId, enabled, awaited }: { webhookId: string; enabled: boolean; awaited: Awaited | null }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const { open, toggle } = useOpenSet();

  // The key sits under webhooks.deliveries, so invalidating it (after a test event) refreshes.
  const list = useInfiniteQuery({
    queryKey: [...trpc.webhooks.deliveries.pathKey(), webhookId, 'pages', status],
    queryFn: ({ pageParam, signal }) =>
      client.webhooks.deliveries.query({ id: webhookId, limit: PAGE_SIZE, ...(status ? { status } : {}), ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: (query) => (isLive(query.state.data?.pages.flatMap((p) => p.data) ?? [], awaited, query.state.dataUpdatedAt) ? LIVE_MS : false),
  });
  const deliveries = list.data?.pages.flatMap((p) => p.data) ?? [];
  const live = isLive(deliveries, awaited, list.dataUpdatedAt);

  // A delivery that settled may have changed the endpoint (a 410, or days of failures, disable
  // it): the page reloads the webhook whenever a delivery's status changes.
  const statuses = deliveries.map((d) => `${d.id}:${d.status}`).join(' ');
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (list.isPending) return;
    if (seen.current !== null && seen.current !== statuses) {
      void queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: webhookId }) });
    }
    seen.current = statuses;
  }, [statuses, list.isPending, queryClient, trpc, webhookId]);

  return (
    <Card className="overflow-hidden" data-testid="deliveries-log">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="flex items-center gap-2 font-semibold text-slate-900">
          Deliveries
          {live && <Spinner className="size-3.5 text-indigo-500" />}
        </h2>
        <label className="flex items-center gap-2 text-xs font-medium text-slate-600">
          Status
          <select className={SELECT} value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus | '')} data-testid="deliveries-status">
            <option value="">All</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]!.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.isPending ? (
        <p className="flex items-center gap-2 px-5 py-6 text-sm text-slate-500" data-testid="deliveries-loading">
          <Spinner className="size-3.5" /> Loading deliveries…
        </p>
      ) : list.isError && deliveries.length === 0 ? (
        <LoadError what="The delivery log" error={list.error} onRetry={() => void list.refetch()} testId="deliveries-error" />
      ) : deliveries.length === 0 ? (
        <p className="px-5 py-10 text-center text-sm text-slate-500" data-testid="deliveries-empty">
          {status
            ? `No ${status} deliveries.`
            : live
              ? 'Sending… the delivery appears here in a moment.'
              : 'No deliveries yet. Send a test event to see one here, with what your endpoint answered.'}
        </p>
      ) : (
        <>
          <ul className="divide-y divide-slate-100">
            {deliveries.map((d) => (
              <DeliveryItem
                key={d.id}
                delivery={d}
                now={list.dataUpdatedAt}
                open={open.has(d.id)}
                onToggle={() => toggle(d.id)}
                canResend={enabled}
                onResent={() => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() })}
              />
            ))}
          </ul>
          <ListFooter list={list} />
        </>
      )}
    </Card>
  );
}
