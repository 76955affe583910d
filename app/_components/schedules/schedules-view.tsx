'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeCron } from '@/app/_lib/cron';
import type { Schedule } from '@/app/_lib/types';
import { AgentFilter, AgentName, useAgentNames } from '../agent-filter';
import { TableSkeleton } from '../agents/agents-table';
import { CARD_ROW, CardTable, CELL, LABEL, OpenCell } from '../card-table';
import { useTRPCClient, useTRPC } from '../providers';
import { ClockIcon, EmptyState, ListFooter, LoadError } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { When } from '../when';
import { NextRun, ScheduleStateBadge } from './schedule-parts';

// Every schedule of the workspace and environment (issue 44, item 6), newest first, in keyset
// pages: what it runs, when in words, its state, its next run and its latest. Filtered by agent
// (in the address: `?agentId=agt_…`). Read again every few seconds, so next runs move on.

const PAGE_SIZE = 25;
const REFRESH_MS = 10_000;
const COLUMNS = ['Schedule', 'Agent', 'State', 'Next run', 'Last run', ''];

function ScheduleRow({ schedule: s, names, now }: { schedule: Schedule; names: ReadonlyMap<string, string>; now: number }) {
  const words = describeCron(s.cron);
  return (
    <tr className={CARD_ROW} data-testid="schedule-row" data-schedule-id={s.id}>
      <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:max-w-sm lg:min-w-56`}>
        <Link href={`/dashboard/schedules/${s.id}`} className="font-medium break-words text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0" data-testid="schedule-row-words">
          {words ?? s.cron}
        </Link>
        <p className="mt-0.5 flex flex-wrap gap-x-2 text-xs text-slate-500">
          <code className="font-mono">{s.cron}</code>
          <span>{s.timezone}</span>
        </p>
        <p className="mt-0.5 line-clamp-1 text-xs break-words text-slate-500">“{s.input}”</p>
      </td>
      <td className={`${CELL} min-w-0 text-slate-700`}>
        <span className={LABEL}>Agent</span>
        <AgentName id={s.agentId} names={names} />
      </td>
      <td className={`${CELL} max-lg:col-start-2 max-lg:row-start-1 max-lg:justify-self-end`}>
        <ScheduleStateBadge schedule={s} now={now} />
      </td>
      <td className={`${CELL} min-w-0 text-slate-600`}>
        <span className={LABEL}>Next run</span>
        <NextRun schedule={s} now={now} className="text-sm text-slate-700 lg:max-w-56" />
      </td>
      <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
        <span className={LABEL}>Last run</span>
        {s.lastRunAt ? <When iso={s.lastRunAt} now={now} timeZone={s.timezone} /> : <span className="text-slate-500">Never</span>}
      </td>
      <OpenCell href={`/dashboard/schedules/${s.id}`} name={words ?? s.cron} />
    </tr>
  );
}

export function SchedulesView({ initialAgentId }: { initialAgentId?: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const [agentId, setAgentId] = useState(initialAgentId);
  const names = useAgentNames();
  const list = useInfiniteQuery({
    queryKey: [...trpc.schedules.list.pathKey(), 'pages', { agentId }],
    queryFn: ({ pageParam, signal }) => client.schedules.list.query({ limit: PAGE_SIZE, ...(agentId ? { agentId } : {}), ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: REFRESH_MS,
  });
  const schedules = list.data?.pages.flatMap((p) => p.data) ?? [];

  function filter(next: string | undefined) {
    setAgentId(next);
    router.replace(`/dashboard/schedules${next ? `?agentId=${encodeURIComponent(next)}` : ''}`, { scroll: false });
  }

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Schedules</h1>
        <p className="mt-1 max-w-2xl text-sm text-slate-600">
          Every agent run on a cron in this environment, made on an agent’s page or with <code className="font-mono text-xs">POST /v1/schedules</code>, newest first. Times are in each schedule’s
          own time zone.
        </p>
      </div>

      <div className="grid grid-cols-2 items-end gap-3 sm:flex sm:flex-wrap" role="group" aria-label="Filters">
        <div className="max-sm:col-span-2">
          <AgentFilter value={agentId} names={names} onChange={filter} />
        </div>
        {agentId && (
          <Button variant="ghost" className="max-sm:-ml-3.5 max-sm:justify-self-start" onClick={() => filter(undefined)} data-testid="clear-filters">
            Clear filter
          </Button>
        )}
        {list.isFetching && !list.isPending && <Spinner className="mb-2.5 text-slate-400 max-sm:hidden" />}
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading schedules" testId="schedules-loading" />
        ) : list.isError && schedules.length === 0 ? (
          <LoadError what="Schedules" error={list.error} onRetry={() => void list.refetch()} testId="schedules-error" />
        ) : schedules.length === 0 ? (
          agentId ? (
            <EmptyState icon={<ClockIcon />} title="This agent has no schedules" action={<Button variant="secondary" onClick={() => filter(undefined)}>Show every agent’s</Button>} testId="schedules-empty">
              Open the agent’s page to give it one.
            </EmptyState>
          ) : (
            <EmptyState icon={<ClockIcon />} title="No schedules yet" action={<ButtonLink href="/dashboard/agents">Go to agents</ButtonLink>} testId="schedules-empty">
              Run an agent every morning, every hour or on the first of the month: add a schedule on its page, or call <code className="font-mono text-xs">POST /v1/schedules</code>.
            </EmptyState>
          )
        ) : (
          <>
            <CardTable columns={COLUMNS} testId="schedules-table">
              {schedules.map((s) => (
                <ScheduleRow key={s.id} schedule={s} names={names} now={list.dataUpdatedAt} />
              ))}
            </CardTable>
            <ListFooter list={list} />
          </>
        )}
      </Card>
    </div>
  );
}
