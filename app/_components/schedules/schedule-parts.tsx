'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { formatDateTime, formatRelative } from '@/app/_lib/dates';
import { errorMessage } from '@/app/_lib/errors';
import type { Schedule } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { StatusBadge } from '../executions/status-badge';
import { IdText } from '../id-text';
import { useTRPC } from '../providers';
import { useCan } from '../team/use-can';
import { Badge, Button, Spinner } from '../ui';

// What an agent's schedules card and the Schedules pages show of a schedule the same way: its
// state, its next run, its latest runs, and (for those whose role may) Run now, Pause/Resume and
// Delete, confirmed. Times are the schedule's own zone's, named (app/_lib/dates.ts).

/** How often a schedule's runs are read again while its page is open (a run that starts shows up). */
export const SCHEDULE_REFRESH_MS = 5_000;

type State = { label: string; tone: 'green' | 'slate' | 'amber' };

/** Active; paused by hand; or ended (disabled when its `endAt` passed). */
export function scheduleState(s: Pick<Schedule, 'enabled' | 'endAt'>, now: number): State {
  if (s.enabled) return { label: 'Active', tone: 'green' };
  if (s.endAt && Date.parse(s.endAt) <= now) return { label: 'Ended', tone: 'amber' };
  return { label: 'Paused', tone: 'slate' };
}

export function ScheduleStateBadge({ schedule, now }: { schedule: Pick<Schedule, 'enabled' | 'endAt'>; now: number }) {
  const state = scheduleState(schedule, now);
  return (
    <Badge tone={state.tone} data-testid="schedule-state" data-enabled={schedule.enabled}>
      {state.label}
    </Badge>
  );
}

/** "Next run in 3 h · Dec 5, 2026, 09:00 CET", or why there is none. */
export function NextRun({ schedule, now, className }: { schedule: Pick<Schedule, 'nextRunAt' | 'timezone'>; now: number; className?: string }) {
  return (
    <p className={className ?? 'text-xs text-slate-500'} data-testid="schedule-next">
      {schedule.nextRunAt ? (
        <>
          Next run {formatRelative(schedule.nextRunAt, now)} ·{' '}
          <time dateTime={schedule.nextRunAt} className="whitespace-nowrap">
            {formatDateTime(schedule.nextRunAt, { timeZone: schedule.timezone })}
          </time>
        </>
      ) : (
        'No next run (paused or ended).'
      )}
    </p>
  );
}

/** The schedule's latest runs, each linked to its execution, then a link to all of them. */
export function RecentRuns({ schedule, limit = 3 }: { schedule: Pick<Schedule, 'id' | 'timezone'>; limit?: number }) {
  const trpc = useTRPC();
  const runs = useQuery({ ...trpc.executions.list.queryOptions({ scheduleId: schedule.id, limit }), refetchInterval: SCHEDULE_REFRESH_MS });
  if (runs.isPending) return <Spinner className="size-3 text-slate-400" />;
  if (runs.isError) return <p className="text-xs text-red-600">{errorMessage(runs.error)}</p>;
  if (runs.data.data.length === 0) return <p className="text-xs text-slate-500" data-testid="schedule-runs-empty">No runs yet.</p>;
  return (
    <ul className="space-y-1" data-testid="schedule-runs">
      {runs.data.data.map((e) => (
        <li key={e.id} className="flex flex-wrap items-center gap-2 text-xs" data-testid="schedule-run">
          <StatusBadge status={e.status} />
          <IdText value={e.id} href={`/dashboard/executions/${e.id}`} copy={false} />
          {e.trigger.type === 'schedule' && (
            <time dateTime={e.trigger.scheduledFor} className="text-slate-500">
              {formatDateTime(e.trigger.scheduledFor, { timeZone: schedule.timezone })}
            </time>
          )}
        </li>
      ))}
      <li>
        <Link href={`/dashboard/executions?scheduleId=${schedule.id}`} className="text-xs font-medium text-indigo-600 hover:text-indigo-500">
          All runs →
        </Link>
      </li>
    </ul>
  );
}

/**
 * Run now, Pause/Resume and Delete (confirmed), for developers and up (docs/teams.md); nothing
 * for a viewer, whom the server refuses anyway. `onChanged` after a pause, resume or delete.
 */
export function ScheduleActions({ schedule, onChanged, onDeleted, size = 'sm' }: { schedule: Schedule; onChanged: () => void; onDeleted?: () => void; size?: 'sm' | 'md' }) {
  const trpc = useTRPC();
  const router = useRouter();
  const can = useCan();
  const [confirming, setConfirming] = useState(false);
  const toggle = useMutation(trpc.schedules.update.mutationOptions({ onSuccess: onChanged }));
  const runNow = useMutation(trpc.schedules.run.mutationOptions({ onSuccess: (e) => router.push(`/dashboard/executions/${e.id}`) }));
  const remove = useMutation(
    trpc.schedules.delete.mutationOptions({
      onSuccess: () => {
        setConfirming(false);
        onChanged();
        onDeleted?.();
      },
    }),
  );
  if (!can.build) return null;
  const failure = toggle.error ?? runNow.error;
  const small = size === 'sm' ? 'px-2.5 py-1 text-xs' : '';
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2" data-testid="schedule-actions">
        <Button variant="secondary" className={small} onClick={() => runNow.mutate({ id: schedule.id })} disabled={runNow.isPending} data-testid="schedule-run-now">
          {runNow.isPending && <Spinner className="size-3" />}
          Run now
        </Button>
        <Button variant="secondary" className={small} onClick={() => toggle.mutate({ id: schedule.id, enabled: !schedule.enabled })} disabled={toggle.isPending} data-testid="schedule-toggle">
          {toggle.isPending && <Spinner className="size-3" />}
          {schedule.enabled ? 'Pause' : 'Resume'}
        </Button>
        <Button variant="dangerGhost" className={small} onClick={() => setConfirming(true)} data-testid="schedule-delete">
          Delete
        </Button>
      </div>
      {failure && (
        <p role="alert" className="text-xs text-red-600">
          {errorMessage(failure)}
        </p>
      )}
      {confirming && (
        <ConfirmDialog
          title="Delete this schedule?"
          label="Delete schedule"
          variant="danger"
          onClose={() => setConfirming(false)}
          onConfirm={() => remove.mutate({ id: schedule.id })}
          pending={remove.isPending}
          error={remove.error}
          testId="delete-schedule-dialog"
          confirmTestId="delete-schedule-confirm"
        >
          <p>
            <code className="font-mono text-xs">{schedule.cron}</code> will not run again. Its past runs stay in the executions list, and a run in progress goes on.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
