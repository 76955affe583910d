import Link from 'next/link';
import { formatDateTime } from '@/app/_lib/dates';
import { durationBetween, formatCount, formatDuration } from '@/app/_lib/format';
import type { Execution } from '@/app/_lib/types';
import { When } from '../when';
import { StatusBadge } from './status-badge';
import { TriggerBadge } from './trigger';

// A compact list of executions for a card beside others (a schedule's runs, a conversation's
// turns), where the executions table would have to scroll sideways: each its status, what
// started it, when, its input (the link to it), its id, and its tokens and duration.

function ExecutionItem({ execution: e, now, timeZone }: { execution: Execution; now: number; timeZone?: string }) {
  const duration = durationBetween(e.startedAt, e.completedAt, now);
  const scheduled = e.trigger.type === 'schedule' ? e.trigger.scheduledFor : null;
  return (
    <li className="relative space-y-1 px-4 py-3 hover:bg-slate-50/60 sm:px-5" data-testid="execution-item" data-execution-id={e.id}>
      <div className="flex flex-wrap items-center gap-2">
        <StatusBadge status={e.status} />
        <TriggerBadge trigger={e.trigger} />
        <When iso={e.createdAt} now={now} className="ml-auto text-xs text-slate-500" />
      </div>
      <Link href={`/dashboard/executions/${e.id}`} className="line-clamp-2 text-sm break-words text-slate-800 after:absolute after:inset-0 hover:text-indigo-600">
        {e.input}
      </Link>
      <p className="flex flex-wrap gap-x-3 text-xs text-slate-500">
        <code className="min-w-0 truncate font-mono">{e.id}</code>
        {scheduled && (
          <span>
            for <time dateTime={scheduled}>{formatDateTime(scheduled, { timeZone })}</time>
          </span>
        )}
        <span>{formatCount(e.usage.totalTokens)} tokens</span>
        {duration !== null && <span>{formatDuration(duration)}</span>}
      </p>
    </li>
  );
}

/** `timeZone`: the zone a schedule's occurrences are written in (its own). */
export function ExecutionList({ executions, now, timeZone, testId }: { executions: Execution[]; now: number; timeZone?: string; testId: string }) {
  return (
    <ul className="divide-y divide-slate-100" data-testid={testId}>
      {executions.map((e) => (
        <ExecutionItem key={e.id} execution={e} now={now} timeZone={timeZone} />
      ))}
    </ul>
  );
}
