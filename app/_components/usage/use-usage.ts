'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { executionGroups, requestGroups, windowOf, type RangePreset, type UsageWindow } from '@/app/_lib/usage';
import { useTRPC, useTRPCClient } from '../providers';

// What the Usage page asks for (docs/decisions.md, "Usage page"), all in the environment of the
// header: the range's buckets ungrouped (charts, totals); one row per model (cost), per agent and
// per key over the whole range (analytics.byGroup: the top tables, each agent's p95 merged over
// the range by the server); and the names of agents and keys.

/** How often the page refreshes its numbers while it is open. */
export const REFRESH_MS = 30_000;
/** Rows of the top agents and top keys tables. */
export const TOP = 10;
/** Pages of 100 walked to name agents and keys (beyond that, unnamed ids are shown as ids). */
const NAME_PAGES = 10;

/** The range's query, moving on when a new hour or day begins while the page is open. */
export function useWindow(range: Pick<RangePreset, 'granularity' | 'buckets'>): UsageWindow {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const { start, end, granularity, limit } = windowOf(range, now);
  return useMemo(() => ({ start, end, granularity, limit }), [start, end, granularity, limit]);
}

interface Named {
  id: string;
  name: string;
}

/** Every item of a keyset-paged list (up to NAME_PAGES pages), and whether that was all of it. */
async function walk<T extends Named>(page: (after?: string) => Promise<{ data: T[]; hasMore: boolean; nextCursor?: string }>) {
  const names = new Map<string, T>();
  let after: string | undefined;
  for (let i = 0; i < NAME_PAGES; i++) {
    const p = await page(after);
    for (const item of p.data) names.set(item.id, item);
    if (!p.hasMore || !p.nextCursor) return { names, complete: true };
    after = p.nextCursor;
  }
  return { names, complete: false };
}

/** The environment's agents (not deleted), by id; `complete`: that was all of them (an id not in it is a deleted agent). */
export function useAgentNames() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: [...trpc.agents.list.pathKey(), 'all'],
    queryFn: ({ signal }) => walk((after) => client.agents.list.query({ limit: 100, ...(after ? { after } : {}) }, { signal })),
    staleTime: 60_000,
  });
}

/** The environment's active keys, by id; `complete`: that was all of them (an id not in it is a revoked key). */
export function useKeyNames() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: [...trpc.keys.list.pathKey(), 'all'],
    queryFn: ({ signal }) => walk((after) => client.keys.list.query({ limit: 100, ...(after ? { after } : {}) }, { signal })),
    staleTime: 60_000,
  });
}

export function useUsage(range: UsageWindow) {
  const trpc = useTRPC();
  // A new range keeps the previous numbers on screen (marked as updating) until its own arrive.
  const live = { placeholderData: keepPreviousData, refetchInterval: REFRESH_MS };

  const executions = useQuery(trpc.analytics.executions.queryOptions(range, live));
  const requests = useQuery(trpc.analytics.requests.queryOptions(range, live));
  const whole = { start: range.start, end: range.end, granularity: range.granularity };
  const byModel = useQuery(trpc.analytics.byGroup.queryOptions({ ...whole, series: 'executions', groupBy: 'model' }, live));
  const byAgent = useQuery(trpc.analytics.byGroup.queryOptions({ ...whole, series: 'executions', groupBy: 'agentId' }, live));
  const byKey = useQuery(trpc.analytics.byGroup.queryOptions({ ...whole, series: 'requests', groupBy: 'keyId' }, live));

  const models = useMemo(() => (byModel.data ? executionGroups(byModel.data.executions, 'model') : []), [byModel.data]);
  const agents = useMemo(() => (byAgent.data ? executionGroups(byAgent.data.executions, 'agentId') : []), [byAgent.data]);
  const keys = useMemo(() => (byKey.data ? requestGroups(byKey.data.requests) : []), [byKey.data]);
  const topAgents = agents.slice(0, TOP);

  const agentNames = useAgentNames();
  const keyNames = useKeyNames();

  const main = [executions, byModel, byAgent, requests, byKey];
  return {
    executions,
    requests,
    models,
    agents,
    topAgents,
    keys,
    agentNames,
    keyNames,
    isPending: main.some((q) => q.isPending),
    /** Every query the page cannot do without has an answer. */
    hasAll: main.every((q) => q.data !== undefined),
    /** The first failure of a query the page cannot do without. */
    error: main.find((q) => q.isError)?.error ?? null,
    /** Showing the previous range's numbers while this one's load. */
    isUpdating: main.some((q) => q.isPlaceholderData),
    isFetching: main.some((q) => q.isFetching),
    refetch: () => Promise.all([...main, agentNames, keyNames].map((q) => q.refetch())),
  };
}
