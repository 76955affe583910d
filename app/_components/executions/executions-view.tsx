'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ExecutionStatus } from '@/app/_lib/types';
import { EXECUTION_STATUS_WORDS } from '@/app/_lib/words';
import { TableSkeleton } from '../agents/agents-table';
import { useTRPC, useTRPCClient } from '../providers';
import { EmptyState, ListFooter, LoadError, RunIcon } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { ExecutionsTable } from './executions-table';
import { isActive, STATUSES } from './status-badge';

const PAGE_SIZE = 25;
/** How often the list refreshes while one of its executions is queued or running. */
const LIVE_MS = 2_000;
/** Otherwise, how often the newest execution is asked for (one row), to notice runs started elsewhere. */
const NEWEST_MS = 5_000;

export interface ExecutionFilters {
  status?: ExecutionStatus;
  agentId?: string;
  conversationId?: string;
  scheduleId?: string;
  /** One version's runs (with agentId: of that agent). */
  agentVersion?: number;
}

const SELECT =
  'block w-full rounded-md border-0 bg-white py-2 pr-8 pl-3 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

export function ExecutionsView({ initial }: { initial: ExecutionFilters }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const [filters, setFilters] = useState<ExecutionFilters>(initial);

  // The filter choices, for the agent select and the names in the table.
  const agents = useQuery({ ...trpc.agents.list.queryOptions({ limit: 100 }), staleTime: 60_000 });
  const agentNames = useMemo(() => new Map((agents.data?.data ?? []).map((a) => [a.id, a.name])), [agents.data]);

  const list = useInfiniteQuery({
    queryKey: [...trpc.executions.list.pathKey(), 'pages', filters],
    queryFn: ({ pageParam, signal }) => client.executions.list.query({ limit: PAGE_SIZE, ...filters, ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.data.some((e) => isActive(e.status))) ? LIVE_MS : false),
  });
  const executions = list.data?.pages.flatMap((p) => p.data) ?? [];
  const active = executions.some((e) => isActive(e.status));

  // Runs started elsewhere (the API, another tab): while nothing runs, ask for the newest one
  // (limit 1) every few seconds, and refresh the list when it is not the list's first. Like the
  // list's own polling, this stops while the tab is hidden (and catches up when it is shown).
  const newest = useQuery({
    ...trpc.executions.list.queryOptions({ limit: 1, ...filters }),
    enabled: list.isSuccess && !active,
    refetchInterval: NEWEST_MS,
    select: (page) => page.data[0]?.id ?? null,
  });
  // Only an answer just fetched counts (not the one cached while it was off).
  const newestId = newest.isFetching ? undefined : newest.data;
  const firstId = list.data?.pages[0]?.data[0]?.id ?? null;
  const refetchList = list.refetch;
  const seen = useRef<string | null>(null);
  useEffect(() => {
    // Once per newest id: a list that still differs after its refresh waits for the next change.
    if (newestId === undefined || newestId === firstId || seen.current === newestId) return;
    seen.current = newestId;
    void refetchList();
  }, [newestId, firstId, refetchList]);
  const filtered = Boolean(filters.status || filters.agentId || filters.conversationId || filters.scheduleId || filters.agentVersion);

  function apply(next: ExecutionFilters) {
    const clean = Object.fromEntries(Object.entries(next).filter(([, v]) => v)) as ExecutionFilters;
    setFilters(clean);
    const qs = new URLSearchParams(Object.entries(clean).map(([k, v]) => [k, String(v)])).toString();
    router.replace(`/dashboard/executions${qs ? `?${qs}` : ''}`, { scroll: false });
  }

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Executions</h1>
        <p className="mt-1 max-w-2xl text-sm text-slate-600">Every run of your agents, from the playground, the API and schedules, newest first. New runs appear and running ones update while this page is open.</p>
      </div>

      <div className="grid grid-cols-2 items-end gap-3 sm:flex sm:flex-wrap" role="group" aria-label="Filters">
        <div className="min-w-0 space-y-1 sm:w-44">
          <label htmlFor="filter-status" className="block text-xs font-medium text-slate-600">
            Status
          </label>
          <select id="filter-status" className={SELECT} value={filters.status ?? ''} onChange={(e) => apply({ ...filters, status: (e.target.value || undefined) as ExecutionStatus | undefined })} data-testid="filter-status">
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {EXECUTION_STATUS_WORDS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="min-w-0 space-y-1 sm:w-64">
          <label htmlFor="filter-agent" className="block text-xs font-medium text-slate-600">
            Agent
          </label>
          <select id="filter-agent" className={SELECT} value={filters.agentId ?? ''} onChange={(e) => apply({ ...filters, agentId: e.target.value || undefined, agentVersion: undefined })} data-testid="filter-agent">
            <option value="">All agents</option>
            {filters.agentId && !agentNames.has(filters.agentId) && <option value={filters.agentId}>{filters.agentId}</option>}
            {agents.data?.data.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        {filters.conversationId && (
          <p className="flex min-w-0 items-center gap-2 rounded-md bg-indigo-50 max-sm:col-span-2 px-3 py-2 text-xs text-indigo-800 ring-1 ring-indigo-200 ring-inset" data-testid="filter-conversation">
            <span className="truncate">
              Conversation <code className="font-mono">{filters.conversationId}</code>
            </span>
            <button type="button" className="shrink-0 font-semibold hover:text-indigo-950" onClick={() => apply({ ...filters, conversationId: undefined })} aria-label="Show all conversations">
              ✕
            </button>
          </p>
        )}
        {filters.scheduleId && (
          <p className="flex min-w-0 items-center gap-2 rounded-md bg-indigo-50 max-sm:col-span-2 px-3 py-2 text-xs text-indigo-800 ring-1 ring-indigo-200 ring-inset" data-testid="filter-schedule">
            <span className="truncate">
              Runs of schedule <code className="font-mono">{filters.scheduleId}</code>
            </span>
            <button type="button" className="shrink-0 font-semibold hover:text-indigo-950" onClick={() => apply({ ...filters, scheduleId: undefined })} aria-label="Show every schedule's runs">
              ✕
            </button>
          </p>
        )}
        {filters.agentVersion && (
          <p className="flex min-w-0 items-center gap-2 rounded-md bg-indigo-50 max-sm:col-span-2 px-3 py-2 text-xs text-indigo-800 ring-1 ring-indigo-200 ring-inset" data-testid="filter-version">
            <span className="truncate">{filters.agentId ? `Runs of version ${filters.agentVersion}` : `Runs of each agent’s version ${filters.agentVersion}`}</span>
            <button type="button" className="shrink-0 font-semibold hover:text-indigo-950" onClick={() => apply({ ...filters, agentVersion: undefined })} aria-label="Show every version's runs">
              ✕
            </button>
          </p>
        )}
        {filtered && (
          <Button variant="ghost" className="max-sm:col-span-2 max-sm:-ml-3.5 max-sm:justify-self-start" onClick={() => apply({})} data-testid="clear-filters">
            Clear filters
          </Button>
        )}
        {list.isFetching && !list.isPending && <Spinner className="mb-2.5 text-slate-400 max-sm:hidden" />}
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading executions" testId="executions-loading" />
        ) : list.isError && executions.length === 0 ? (
          <LoadError what="Executions" error={list.error} onRetry={() => void list.refetch()} testId="executions-error" />
        ) : executions.length === 0 ? (
          filtered ? (
            <EmptyState icon={<RunIcon />} title="No executions match these filters" action={<Button variant="secondary" onClick={() => apply({})}>Clear filters</Button>} testId="executions-empty">
              Try another status or agent.
            </EmptyState>
          ) : (
            <EmptyState icon={<RunIcon />} title="No executions yet" action={<ButtonLink href="/dashboard/agents">Go to agents</ButtonLink>} testId="executions-empty">
              Run an agent in its playground, or call <code className="font-mono text-xs">POST /v1/agents/:id/execute</code>: every run shows up here.
            </EmptyState>
          )
        ) : (
          <>
            <ExecutionsTable executions={executions} agentNames={agentNames} now={list.dataUpdatedAt} />
            <ListFooter list={list} />
          </>
        )}
      </Card>
    </div>
  );
}
