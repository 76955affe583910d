import { EXPERIMENT_STATUS_WORDS, isEnded, progressOf } from '@/app/_lib/experiments';
import type { Experiment, ExperimentStatus } from '@/app/_lib/types';
import { Badge, cx } from '../ui';

// An experiment's status as a badge (the executions' colours: queued slate, running indigo and
// pulsing, succeeded green, failed red, cancelled amber) and its progress as a bar with "12 / 40".

const TONE = { queued: 'slate', running: 'indigo', succeeded: 'green', failed: 'red', cancelled: 'amber' } as const satisfies Record<ExperimentStatus, string>;

export function ExperimentStatusBadge({ status, className }: { status: ExperimentStatus; className?: string }) {
  return (
    <Badge tone={TONE[status]} className={className} data-testid="experiment-status" data-status={status}>
      {!isEnded(status) && <span aria-hidden className={`mr-1.5 inline-block size-1.5 rounded-full bg-current ${status === 'running' ? 'animate-pulse' : 'opacity-60'}`} />}
      {EXPERIMENT_STATUS_WORDS[status]}
    </Badge>
  );
}

const BAR = { queued: 'bg-slate-400', running: 'bg-indigo-500', succeeded: 'bg-emerald-500', failed: 'bg-red-500', cancelled: 'bg-amber-500' } as const satisfies Record<ExperimentStatus, string>;

/** The runs done of all (items × trials) as a bar and "12 / 40"; `wide` for a page's header, else a table cell's. */
export function ProgressBar({ experiment: e, wide = false, className }: { experiment: Pick<Experiment, 'progress' | 'status'>; wide?: boolean; className?: string }) {
  const { text, share } = progressOf(e.progress);
  return (
    <div className={cx('flex items-center gap-2', className)} data-testid="experiment-progress" data-done={e.progress.done} data-total={e.progress.total}>
      <div
        role="progressbar"
        aria-label="Runs done"
        aria-valuemin={0}
        aria-valuemax={e.progress.total}
        aria-valuenow={e.progress.done}
        aria-valuetext={`${text} runs`}
        className={cx('h-1.5 overflow-hidden rounded-full bg-slate-200', wide ? 'min-w-0 flex-1' : 'w-20 shrink-0')}
      >
        <div className={cx('h-full rounded-full transition-[width] duration-500', BAR[e.status])} style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <span className="text-xs whitespace-nowrap text-slate-600 tabular-nums" data-testid="experiment-progress-text">
        {text}
      </span>
    </div>
  );
}
