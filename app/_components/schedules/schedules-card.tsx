'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { describeCron } from '@/app/_lib/cron';
import type { Schedule } from '@/app/_lib/types';
import { useTRPC } from '../providers';
import { ClockIcon, EmptyState, LoadError } from '../states';
import { Badge, Button, Card } from '../ui';
import { CreateScheduleDialog } from './create-schedule-dialog';
import { NextRun, RecentRuns, SCHEDULE_REFRESH_MS, ScheduleActions, ScheduleStateBadge } from './schedule-parts';
import { useCan } from '../team/use-can';
import { useHash, useScrolledTo } from '../use-hash';

// An agent's schedules on its page: each with its cron (in words too, linked to the schedule's
// own page) and zone, its next run, its last runs (linked to their executions), and — for those
// whose role may — Run now, Pause/Resume and Delete (confirmed: schedule-parts.tsx).
// Refreshed every few seconds while the page is open, so a run that starts shows up. A link to
// `/dashboard/agents/<agent>#<schedule id>` (an execution's "Started by") scrolls to that
// schedule and highlights it once the list has loaded.

function ScheduleItem({ schedule, onChanged, highlighted, now }: { schedule: Schedule; onChanged: () => void; highlighted: boolean; now: number }) {
  const words = describeCron(schedule.cron);
  const ref = useScrolledTo<HTMLLIElement>(highlighted);
  return (
    <li
      ref={ref}
      id={schedule.id}
      className={`space-y-3 px-4 py-4 transition-colors sm:px-5 ${highlighted ? 'bg-indigo-50/70 ring-2 ring-indigo-400 ring-inset' : ''}`}
      data-testid="schedule-item"
      data-schedule-id={schedule.id}
      data-highlighted={highlighted || undefined}
      aria-current={highlighted ? 'true' : undefined}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          {words && (
            <p className="text-sm font-semibold text-slate-900" data-testid="schedule-cron-words">
              <Link href={`/dashboard/schedules/${schedule.id}`} className="hover:text-indigo-600">
                {words}
              </Link>
            </p>
          )}
          <p className="flex flex-wrap items-center gap-2">
            <code className={`font-mono text-slate-900 ${words ? 'text-xs' : 'text-sm font-semibold'}`} data-testid="schedule-cron-text">
              {schedule.cron}
            </code>
            <span className="text-xs text-slate-500">{schedule.timezone}</span>
            <ScheduleStateBadge schedule={schedule} now={now} />
            {schedule.overlap === 'enqueue' && <Badge>Queues overlaps</Badge>}
          </p>
          <p className="text-sm break-words text-slate-700">“{schedule.input.length > 160 ? `${schedule.input.slice(0, 160)}…` : schedule.input}”</p>
          <NextRun schedule={schedule} now={now} />
        </div>
        <ScheduleActions schedule={schedule} onChanged={onChanged} />
      </div>
      <RecentRuns schedule={schedule} />
    </li>
  );
}

export function SchedulesCard({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const list = useQuery({ ...trpc.schedules.list.queryOptions({ agentId, limit: 100 }), refetchInterval: SCHEDULE_REFRESH_MS });
  const now = list.dataUpdatedAt;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.schedules.pathKey() });
  const schedules = list.data?.data ?? [];
  const hash = useHash();
  const can = useCan();
  const add = (label: string) =>
    can.build && (
      <Button variant={schedules.length ? 'secondary' : 'primary'} onClick={() => setCreating(true)} data-testid="create-schedule">
        <span aria-hidden>+</span> {label}
      </Button>
    );

  return (
    <Card className="scroll-mt-6 overflow-hidden" id="schedules" data-testid="schedules-card">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <div>
          <h2 className="font-semibold text-slate-900">Schedules</h2>
          <p className="text-xs text-slate-500">Run this agent on a cron, without a caller.</p>
        </div>
        {schedules.length > 0 && add('New schedule')}
      </div>
      {list.isPending ? (
        <div className="h-24 animate-pulse bg-slate-50" aria-busy="true" aria-label="Loading schedules" data-testid="schedules-loading" />
      ) : list.isError ? (
        <LoadError what="The schedules" error={list.error} onRetry={() => void list.refetch()} testId="schedules-error" />
      ) : schedules.length === 0 ? (
        <EmptyState icon={<ClockIcon />} title="No schedules" action={add('New schedule')} testId="schedules-empty">
          Run this agent every morning, every hour or on the first of the month, in your time zone.
        </EmptyState>
      ) : (
        <ul className="divide-y divide-slate-200">
          {schedules.map((s) => (
            <ScheduleItem key={s.id} schedule={s} onChanged={refresh} highlighted={s.id === hash} now={now} />
          ))}
        </ul>
      )}
      {creating && (
        <CreateScheduleDialog
          agentId={agentId}
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            refresh();
          }}
        />
      )}
    </Card>
  );
}
