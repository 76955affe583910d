'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { describeCron } from '@/app/_lib/cron';
import { errorMessage } from '@/app/_lib/errors';
import { formatInZone } from '@/app/_lib/format';
import type { Schedule } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { StatusBadge } from '../executions/status-badge';
import { IdText } from '../id-text';
import { useTRPC } from '../providers';
import { EmptyState, LoadError } from '../states';
import { Badge, Button, Card, Spinner } from '../ui';
import { CreateScheduleDialog } from './create-schedule-dialog';
import { useCan } from '../team/use-can';

// An agent's schedules on its page: each with its cron (in words too) and zone, its next run, its
// last runs (linked to their executions), and Run now, Pause/Resume and Delete (confirmed).
// Refreshed every few seconds while the page is open, so a run that starts shows up. A link to
// `/dashboard/agents/<agent>#<schedule id>` (an execution's "Started by") scrolls to that
// schedule and highlights it once the list has loaded.

const REFRESH_MS = 5_000;

function ClockIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.5} className="size-6" aria-hidden>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7v5l3 2" strokeLinecap="round" />
    </svg>
  );
}

function RecentRuns({ schedule }: { schedule: Schedule }) {
  const trpc = useTRPC();
  const runs = useQuery({ ...trpc.executions.list.queryOptions({ scheduleId: schedule.id, limit: 3 }), refetchInterval: REFRESH_MS });
  if (runs.isPending) return <Spinner className="size-3 text-slate-400" />;
  if (runs.isError) return <p className="text-xs text-red-600">{errorMessage(runs.error)}</p>;
  if (runs.data.data.length === 0) return <p className="text-xs text-slate-500">No runs yet.</p>;
  return (
    <ul className="space-y-1" data-testid="schedule-runs">
      {runs.data.data.map((e) => (
        <li key={e.id} className="flex flex-wrap items-center gap-2 text-xs" data-testid="schedule-run">
          <StatusBadge status={e.status} />
          <IdText value={e.id} href={`/dashboard/executions/${e.id}`} copy={false} />
          <span className="text-slate-500">{e.trigger.type === 'schedule' ? formatInZone(e.trigger.scheduledFor, schedule.timezone) : ''}</span>
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

/** The URL's fragment, kept up to date (no fragment on the server). */
function useHash(): string {
  return useSyncExternalStore(
    (changed) => {
      window.addEventListener('hashchange', changed);
      return () => window.removeEventListener('hashchange', changed);
    },
    () => window.location.hash.slice(1),
    () => '',
  );
}

function ScheduleItem({ schedule, onChanged, highlighted }: { schedule: Schedule; onChanged: () => void; highlighted: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const toggle = useMutation(trpc.schedules.update.mutationOptions({ onSuccess: onChanged }));
  const runNow = useMutation(trpc.schedules.run.mutationOptions({ onSuccess: (e) => router.push(`/dashboard/executions/${e.id}`) }));
  const remove = useMutation(trpc.schedules.delete.mutationOptions({ onSuccess: onChanged }));
  const failure = toggle.error ?? runNow.error;
  const words = describeCron(schedule.cron);
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlighted]);
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
              {words}
            </p>
          )}
          <p className="flex flex-wrap items-center gap-2">
            <code className={`font-mono text-slate-900 ${words ? 'text-xs' : 'text-sm font-semibold'}`} data-testid="schedule-cron-text">
              {schedule.cron}
            </code>
            <span className="text-xs text-slate-500">{schedule.timezone}</span>
            <Badge tone={schedule.enabled ? 'green' : 'slate'} data-testid="schedule-state">
              {schedule.enabled ? 'active' : 'paused'}
            </Badge>
            {schedule.overlap === 'enqueue' && <Badge>queues overlaps</Badge>}
          </p>
          <p className="text-sm break-words text-slate-700">“{schedule.input.length > 160 ? `${schedule.input.slice(0, 160)}…` : schedule.input}”</p>
          <p className="text-xs text-slate-500" data-testid="schedule-next">
            {schedule.nextRunAt ? `Next run: ${formatInZone(schedule.nextRunAt, schedule.timezone)}` : 'No next run (paused or ended).'}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" className="px-2.5 py-1 text-xs" onClick={() => runNow.mutate({ id: schedule.id })} disabled={runNow.isPending} data-testid="schedule-run-now">
            {runNow.isPending && <Spinner className="size-3" />}
            Run now
          </Button>
          <Button
            variant="secondary"
            className="px-2.5 py-1 text-xs"
            onClick={() => toggle.mutate({ id: schedule.id, enabled: !schedule.enabled })}
            disabled={toggle.isPending}
            data-testid="schedule-toggle"
          >
            {toggle.isPending && <Spinner className="size-3" />}
            {schedule.enabled ? 'Pause' : 'Resume'}
          </Button>
          <Button variant="dangerGhost" className="px-2.5 py-1 text-xs" onClick={() => setConfirming(true)} data-testid="schedule-delete">
            Delete
          </Button>
        </div>
      </div>
      {failure && (
        <p role="alert" className="text-xs text-red-600">
          {errorMessage(failure)}
        </p>
      )}
      <RecentRuns schedule={schedule} />
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
    </li>
  );
}

export function SchedulesCard({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const list = useQuery({ ...trpc.schedules.list.queryOptions({ agentId, limit: 100 }), refetchInterval: REFRESH_MS });
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
            <ScheduleItem key={s.id} schedule={s} onChanged={refresh} highlighted={s.id === hash} />
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
