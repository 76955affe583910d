'use client';

import type { KeyboardEvent, ReactNode } from 'react';
import { formatCount, formatDuration } from '@/app/_lib/format';
import { costOf, spanLabel, tokensOf, type Waterfall, type WaterfallRow } from '@/app/_lib/trace';
import type { Span } from '@/app/_lib/types';
import { formatUsd } from '@/app/_lib/usage';
import { Badge, cx, Spinner } from '../ui';

// The trace as a waterfall: one row per span, each a button (click, or Enter/Space; the arrow
// keys, Home and End move between rows), nested by parent, its bar placed on the run's one time
// axis. Below the sm breakpoint a row's bar sits under its name, the full width of the card,
// so nothing scrolls sideways; names truncate.

/** Each kind of span's colour: its dot beside the name and its bar. */
const COLOUR: Record<Span['name'], string> = {
  execution: 'bg-slate-500',
  queue_wait: 'bg-slate-300',
  model_call: 'bg-indigo-500',
  tool_call: 'bg-emerald-500',
  approval_wait: 'bg-violet-400',
};

const LEGEND: [string, string][] = [
  ['Model call', COLOUR.model_call],
  ['Tool call', COLOUR.tool_call],
  ['Waiting', COLOUR.queue_wait],
  ['Approval', COLOUR.approval_wait],
  ['Error', 'bg-red-500'],
];

/** The name and its facts on the left, the bar on the right (under the name on a phone). */
const GRID = 'grid gap-x-4 gap-y-1.5 sm:grid-cols-[minmax(0,5fr)_minmax(0,6fr)] sm:items-center';
const PAD = 'px-4 sm:px-5';

/** A highlight beside a row's name ("Slowest", "Dearest"): a badge in a tone of its own. */
function Mark({ tone, children, testId }: { tone: 'amber' | 'rose'; children: ReactNode; testId: string }) {
  const colours = tone === 'amber' ? 'bg-amber-100 text-amber-800 ring-amber-600/30' : 'bg-rose-50 text-rose-700 ring-rose-600/30';
  return (
    <span className={cx('inline-flex shrink-0 items-center rounded-md px-1.5 py-0.5 text-[11px] font-medium whitespace-nowrap ring-1 ring-inset', colours)} data-testid={testId}>
      {children}
    </span>
  );
}

/** What a row says under its name: duration, tokens, cost, an HTTP tool's status. */
function facts(span: Span): string {
  const parts = [formatDuration(span.durationMs)];
  const tokens = tokensOf(span);
  if (tokens !== null) parts.push(`${formatCount(tokens)} tokens`);
  const cost = costOf(span);
  if (cost !== undefined) parts.push(cost === null ? 'cost unknown' : formatUsd(cost));
  if (span.httpStatus !== undefined) parts.push(`HTTP ${span.httpStatus}`);
  return parts.join(' · ');
}

/** A bar's track: the axis's quarters marked, the bar placed by its start and length. */
function Track({ children }: { children: ReactNode }) {
  return (
    <div aria-hidden className="relative h-5 min-w-0 rounded bg-slate-50 ring-1 ring-slate-100 ring-inset">
      {[25, 50, 75].map((at) => (
        <span key={at} className="absolute inset-y-0 w-px bg-slate-200/70" style={{ left: `${at}%` }} />
      ))}
      {children}
    </div>
  );
}

function SpanRow({ row, slowest, dearest, selected, onSelect }: { row: WaterfallRow; slowest: boolean; dearest: boolean; selected: boolean; onSelect: () => void }) {
  const { span, depth, offset, width } = row;
  const { title, detail } = spanLabel(span);
  const failed = span.status === 'error';
  return (
    <button
      type="button"
      onClick={onSelect}
      aria-pressed={selected}
      data-testid="trace-span"
      data-span-id={span.id}
      data-span-name={span.name}
      data-selected={selected || undefined}
      className={cx(
        'w-full text-left transition-colors focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600',
        GRID,
        PAD,
        'py-2',
        selected ? 'bg-indigo-50' : 'hover:bg-slate-50',
      )}
    >
      <div className="min-w-0" style={{ paddingLeft: `${Math.min(depth, 4) * 0.875}rem` }} data-testid="trace-span-label">
        <div className="flex min-w-0 items-center gap-1.5">
          <span aria-hidden className={cx('size-2 shrink-0 rounded-sm', failed ? 'bg-red-500' : COLOUR[span.name])} />
          <span className={cx('min-w-0 truncate text-sm font-medium text-slate-900', span.name === 'tool_call' && 'font-mono text-[13px]')} title={title} data-testid="trace-span-name">
            {title}
          </span>
          {detail && (
            <span className="min-w-0 shrink-[3] truncate text-xs text-slate-500" title={detail}>
              {detail}
            </span>
          )}
          {failed && (
            <Badge tone="red" className="shrink-0">
              Error
            </Badge>
          )}
          {slowest && (
            <Mark tone="amber" testId="trace-slowest">
              Slowest
            </Mark>
          )}
          {dearest && (
            <Mark tone="rose" testId="trace-dearest">
              Dearest
            </Mark>
          )}
        </div>
        <p className="mt-0.5 truncate text-xs text-slate-500 tabular-nums" data-testid="trace-span-facts">
          {facts(span)}
        </p>
      </div>
      <Track>
        <span
          data-testid="trace-bar"
          className={cx(
            'absolute inset-y-1 rounded-sm',
            failed ? 'bg-red-500' : COLOUR[span.name],
            slowest && 'ring-2 ring-amber-400 ring-offset-1',
            dearest && 'ring-2 ring-rose-400 ring-offset-1',
          )}
          // At least 2 px wide, and never past the axis's end.
          style={{ left: `min(${(offset * 100).toFixed(3)}%, calc(100% - 2px))`, width: `max(2px, ${(width * 100).toFixed(3)}%)` }}
        />
      </Track>
    </button>
  );
}

/** The root while the run goes on: not written yet (it comes with the end), drawn from the creation to now. */
function PendingRoot({ totalMs }: { totalMs: number }) {
  return (
    <div className={cx(GRID, PAD, 'py-2')} data-testid="trace-pending-root">
      <div className="min-w-0">
        <div className="flex min-w-0 items-center gap-1.5">
          <span aria-hidden className={cx('size-2 shrink-0 rounded-sm', COLOUR.execution)} />
          <span className="truncate text-sm font-medium text-slate-900">Execution</span>
          <Spinner className="size-3 shrink-0 text-indigo-500" />
        </div>
        <p className="mt-0.5 truncate text-xs text-slate-500 tabular-nums">{formatDuration(totalMs)} so far</p>
      </div>
      <Track>
        <span className="absolute inset-y-1 left-0 w-full animate-pulse rounded-sm bg-slate-300" />
      </Track>
    </div>
  );
}

/** Arrow keys, Home and End move between the rows. */
function moveFocus(ev: KeyboardEvent<HTMLElement>) {
  if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(ev.key)) return;
  const rows = [...ev.currentTarget.querySelectorAll<HTMLButtonElement>('button[data-span-id]')];
  const at = rows.findIndex((b) => b === document.activeElement);
  if (at < 0) return;
  ev.preventDefault();
  const next = ev.key === 'Home' ? 0 : ev.key === 'End' ? rows.length - 1 : Math.min(rows.length - 1, Math.max(0, at + (ev.key === 'ArrowDown' ? 1 : -1)));
  rows[next]?.focus();
}

export function TraceWaterfall({ waterfall, live, selectedId, onSelect }: { waterfall: Waterfall; live: boolean; selectedId: string | null; onSelect: (id: string) => void }) {
  const { rows, totalMs, slowestId, dearestId } = waterfall;
  return (
    <div data-testid="trace-waterfall">
      <div className={cx(GRID, PAD, 'border-b border-slate-100 py-2 text-[11px] font-medium text-slate-500')} aria-hidden data-testid="trace-axis">
        <span className="max-sm:hidden">Span</span>
        <div className="relative h-4 tabular-nums">
          <span className="absolute left-0">0</span>
          <span className="absolute left-1/2 -translate-x-1/2">{formatDuration(totalMs / 2)}</span>
          <span className="absolute right-0">{formatDuration(totalMs)}</span>
        </div>
      </div>
      <ul className="divide-y divide-slate-100" aria-label="Spans, in the order they ran" onKeyDown={moveFocus}>
        {waterfall.rootPending && live && (
          <li>
            <PendingRoot totalMs={totalMs} />
          </li>
        )}
        {rows.map((row) => (
          <li key={row.span.id}>
            <SpanRow row={row} slowest={row.span.id === slowestId} dearest={row.span.id === dearestId} selected={row.span.id === selectedId} onSelect={() => onSelect(row.span.id)} />
          </li>
        ))}
      </ul>
      <p className={cx(PAD, 'flex flex-wrap gap-x-4 gap-y-1 border-t border-slate-100 py-2 text-[11px] text-slate-500')} aria-hidden>
        {LEGEND.map(([label, colour]) => (
          <span key={label} className="inline-flex items-center gap-1.5">
            <span className={cx('size-2 rounded-sm', colour)} />
            {label}
          </span>
        ))}
      </p>
    </div>
  );
}
