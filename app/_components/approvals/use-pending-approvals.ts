'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { Execution } from '@/app/_lib/types';
import { useTRPC } from '../providers';
import type { AwaitedCall } from './use-decide';

// Every tool call awaiting a decision in the current environment: the calls of the executions
// paused in `requires_action` (the newest 100 of them), read again every few seconds while the
// tab is shown. The Approvals page and the count in the navigation share the one query.

/** The paused executions one read returns (the list's most). */
export const PAUSED_LIMIT = 100;

export interface PendingItem {
  execution: Execution;
  call: AwaitedCall;
}

/** `intervalMs`: how often this reader wants it read again (the query goes at the most eager reader's pace). */
export function usePendingApprovals(intervalMs: number, enabled = true) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.executions.list.queryOptions({ status: 'requires_action', limit: PAUSED_LIMIT }),
    refetchInterval: intervalMs,
    enabled,
  });
  const data = query.data;
  const items = useMemo<PendingItem[]>(
    () =>
      (data?.data ?? [])
        .flatMap((execution) => (execution.requiredAction?.toolCalls ?? []).map((call) => ({ execution, call })))
        // The most urgent first: the soonest to expire.
        .sort((a, b) => Date.parse(a.call.expiresAt) - Date.parse(b.call.expiresAt) || a.call.id.localeCompare(b.call.id)),
    [data],
  );
  return { query, items, count: items.length, more: data?.hasMore ?? false };
}
