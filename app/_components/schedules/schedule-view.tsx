'use client';

import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, type ReactNode } from 'react';
import { describeCron } from '@/app/_lib/cron';
import { formatDateTime, formatRelative } from '@/app/_lib/dates';
import { hasErrorCode } from '@/app/_lib/errors';
import type { Schedule } from '@/app/_lib/types';
import { useAgentNames } from '../agent-filter';
import { TableSkeleton } from '../agents/agents-table';
import { DetailRow } from '../detail-row';
import { ExecutionList } from '../executions/execution-list';
import { IdText } from '../id-text';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { Breadcrumb, ClockIcon, EmptyState, ListFooter, LoadError, PageSkeleton, RunIcon } from '../states';
import { Badge, ButtonLink, Card, MetadataList, Spinner } from '../ui';
import { NextRun, SCHEDULE_REFRESH_MS, ScheduleActions, ScheduleStateBadge } from './schedule-parts';

// One schedule's page (issue 44, item 6): when it runs in words and its next runs (in its zone,
// and how far off), its runs in keyset pages, what it sends, and — for those whose role may — Run
// now, Pause/Resume and Delete (confirmed). Another workspace's or environment's schedule is
// "not found" on the server: the page says so.

const RUNS_PAGE = 10;

function Section({ title, aside, children, testId }: { title: string; aside?: ReactNode; children: ReactNode; testId: string }) {
  return (
    <Card className="overflow-hidden" data-testid={testId}>
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="font-semibold text-slate-900">{title}</h2>
        {aside}
      </div>
      {children}
    </Card>
  );
}

/** The schedule's coming runs, as its ticker will make them (schedules.upcoming). */
function UpcomingRuns({ schedule, now }: { schedule: Schedule; now: number }) {
  const trpc = useTRPC();
  const upcoming = useQuery({ ...trpc.schedules.upcoming.queryOptions({ id: schedule.id, count: 5 }), staleTime: Infinity });
  // Asked again when its next run moves (an occurrence passed, or its timing was changed elsewhere).
  const seen = useRef(schedule.nextRunAt);
  const { refetch } = upcoming;
  useEffect(() => {
    if (seen.current === schedule.nextRunAt) return;
    seen.current = schedule.nextRunAt;
    void refetch();
  }, [schedule.nextRunAt, refetch]);
  if (upcoming.isPending) return <div className="h-32 animate-pulse bg-slate-50" aria-busy="true" aria-label="Loading the next runs" data-testid="upcoming-loading" />;
  if (upcoming.isError) return <LoadError what="The next runs" error={upcoming.error} onRetry={() => void upcoming.refetch()} testId="upcoming-error" />;
  if (upcoming.data.runs.length === 0) {
    return (
      <p className="px-4 py-6 text-sm text-slate-600 sm:px-5" data-testid="upcoming-empty">
        {schedule.enabled ? 'No run before its end date.' : 'None while it is paused: resume it to run it again.'}
      </p>
    );
  }
  return (
    <ol className="divide-y divide-slate-100" data-testid="upcoming-runs">
      {upcoming.data.runs.map((run) => (
        <li key={run} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-0.5 px-4 py-2.5 text-sm sm:px-5" data-testid="upcoming-run">
          <time dateTime={run} className="font-medium text-slate-800">
            {formatDateTime(run, { timeZone: upcoming.data.timezone })}
          </time>
          <span className="text-xs text-slate-500">{formatRelative(run, now)}</span>
        </li>
      ))}
    </ol>
  );
}

function ScheduleRuns({ schedule }: { schedule: Schedule }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const runs = useInfiniteQuery({
    queryKey: [...trpc.executions.list.pathKey(), 'pages', { scheduleId: schedule.id }],
    queryFn: ({ pageParam, signal }) => client.executions.list.query({ scheduleId: schedule.id, limit: RUNS_PAGE, ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: SCHEDULE_REFRESH_MS,
  });
  const executions = runs.data?.pages.flatMap((p) => p.data) ?? [];
  if (runs.isPending) return <TableSkeleton label="Loading its runs" testId="schedule-runs-loading" />;
  if (runs.isError && executions.length === 0) return <LoadError what="Its runs" error={runs.error} onRetry={() => void runs.refetch()} testId="schedule-runs-error" />;
  if (executions.length === 0) {
    return (
      <EmptyState icon={<RunIcon />} title="No runs yet" testId="schedule-runs-empty">
        {schedule.nextRunAt ? `The first comes ${formatRelative(schedule.nextRunAt, runs.dataUpdatedAt)}.` : 'It is paused: it runs once resumed, or when run now.'}
      </EmptyState>
    );
  }
  return (
    <>
      <ExecutionList executions={executions} now={runs.dataUpdatedAt} timeZone={schedule.timezone} testId="schedule-runs" />
      <ListFooter list={runs} />
    </>
  );
}

export function ScheduleView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const schedule = useQuery({ ...trpc.schedules.get.queryOptions({ id }), refetchInterval: SCHEDULE_REFRESH_MS, retry: (n, e) => !hasErrorCode(e, 'resource_not_found') && n < 2 });
  const names = useAgentNames();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.schedules.pathKey() });

  if (schedule.isPending) return <PageSkeleton label="Loading the schedule" testId="schedule-loading" />;
  if (schedule.isError) {
    const missing = hasErrorCode(schedule.error, 'resource_not_found');
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/schedules" parent="Schedules" current={id} />
        <Card>
          {missing ? (
            <EmptyState icon={<ClockIcon />} title="No such schedule here" action={<ButtonLink href="/dashboard/schedules">Back to schedules</ButtonLink>} testId="schedule-not-found">
              It may have been deleted, or belong to {environment === 'test' ? 'live' : 'test'} mode: schedules of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This schedule" error={schedule.error} onRetry={() => void schedule.refetch()} testId="schedule-error" />
          )}
        </Card>
      </div>
    );
  }

  const s = schedule.data;
  const now = schedule.dataUpdatedAt;
  const words = describeCron(s.cron);
  const agentName = names.get(s.agentId);
  return (
    <div className="space-y-6" data-testid="schedule-page" data-schedule-id={s.id}>
      <Breadcrumb href="/dashboard/schedules" parent="Schedules" current={words ?? s.cron} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1.5">
          <h1 className="text-2xl font-semibold tracking-tight break-words text-slate-900" data-testid="schedule-words">
            {words ?? s.cron}
          </h1>
          <p className="flex flex-wrap items-center gap-2 text-sm text-slate-600">
            <code className="font-mono text-xs text-slate-900" data-testid="schedule-cron-text">
              {s.cron}
            </code>
            <span>{s.timezone}</span>
            <ScheduleStateBadge schedule={s} now={now} />
            {s.overlap === 'enqueue' && <Badge>Queues overlaps</Badge>}
            {schedule.isFetching && <Spinner className="size-3 text-slate-400" />}
          </p>
          <NextRun schedule={s} now={now} className="text-sm text-slate-600" />
        </div>
        <ScheduleActions schedule={s} onChanged={refresh} onDeleted={() => router.push('/dashboard/schedules')} size="md" />
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <Section title="Next runs" testId="schedule-upcoming" aside={<span className="text-xs text-slate-500">in {s.timezone}</span>}>
            <UpcomingRuns schedule={s} now={now} />
          </Section>
          <Section
            title="Runs"
            testId="schedule-runs-card"
            aside={
              <Link href={`/dashboard/executions?scheduleId=${s.id}`} className="text-xs font-medium text-indigo-600 hover:text-indigo-500">
                In the executions list →
              </Link>
            }
          >
            <ScheduleRuns schedule={s} />
          </Section>
        </div>
        <Card className="h-fit overflow-hidden" data-testid="schedule-facts">
          <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Details</h2>
          <dl className="divide-y divide-slate-100">
            <DetailRow dense label="Agent" testId="schedule-agent">
              {agentName && (
                <Link href={`/dashboard/agents/${s.agentId}`} className="block font-medium text-indigo-600 hover:text-indigo-500">
                  {agentName}
                </Link>
              )}
              <IdText value={s.agentId} href={`/dashboard/agents/${s.agentId}`} />
            </DetailRow>
            <DetailRow dense label="Sends" testId="schedule-input">
              <span className="whitespace-pre-wrap">{s.input}</span>
            </DetailRow>
            <DetailRow dense label="Conversation">
              {s.conversationId ? <IdText value={s.conversationId} href={`/dashboard/conversations/${s.conversationId}`} /> : <span className="text-slate-500">A new one each run</span>}
            </DetailRow>
            <DetailRow dense label="If still running">{s.overlap === 'enqueue' ? 'The next run waits for it' : 'The next run is skipped'}</DetailRow>
            <DetailRow dense label="Ends">{s.endAt ? formatDateTime(s.endAt, { timeZone: s.timezone }) : <span className="text-slate-500">Never</span>}</DetailRow>
            {Object.keys(s.metadata).length > 0 && (
              <DetailRow dense label="Metadata">
                <MetadataList metadata={s.metadata} />
              </DetailRow>
            )}
            <DetailRow dense label="Id">
              <IdText value={s.id} />
            </DetailRow>
            <DetailRow dense label="Created">{formatDateTime(s.createdAt)}</DetailRow>
            <DetailRow dense label="Updated">{formatDateTime(s.updatedAt)}</DetailRow>
          </dl>
        </Card>
      </div>
    </div>
  );
}
