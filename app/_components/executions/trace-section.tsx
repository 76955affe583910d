'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatDuration } from '@/app/_lib/format';
import { waterfallOf } from '@/app/_lib/trace';
import type { Execution } from '@/app/_lib/types';
import { useTRPC } from '../providers';
import { LoadError } from '../states';
import { Spinner } from '../ui';
import { Section } from './section';
import { SpanDetails } from './span-details';
import { isActive } from './status-badge';
import { TraceWaterfall } from './trace-waterfall';

// The execution's trace (docs/traces.md) as a waterfall, with the selected span's details below
// it. Live while the run goes on: the spans that ended are read every second (a paused run's
// every few: nothing ends until its calls are decided), and once more when the run ends, when its
// root and queue wait are written.

/** How often the trace is read again while the run goes on, and while it waits for approval. */
const LIVE_POLL_MS = 1_000;
const PAUSED_POLL_MS = 3_000;

export function TraceSection({
  execution: e,
  now,
  onReplayFrom,
}: {
  execution: Execution;
  /** The clock (ticking while the run goes on): the live axis ends there. */
  now: number;
  /** "Replay from here" on a model call: given, each model call's details offer it (its 0-based step). */
  onReplayFrom?: (step: number) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const active = isActive(e.status);
  const trace = useQuery({
    ...trpc.executions.trace.queryOptions({ id: e.id }),
    refetchInterval: active ? (e.status === 'requires_action' ? PAUSED_POLL_MS : LIVE_POLL_MS) : false,
  });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const body = useRef<HTMLDivElement>(null);
  /** Closing the details gives the focus back to the span's row. */
  const close = () => {
    const row = selectedId ? body.current?.querySelector<HTMLButtonElement>(`button[data-span-id="${CSS.escape(selectedId)}"]`) : null;
    setSelectedId(null);
    row?.focus();
  };

  // Once more when the run ends (its root and queue wait come with the end); not on the first render.
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) void queryClient.invalidateQueries({ queryKey: trpc.executions.trace.queryKey({ id: e.id }) });
    wasActive.current = active;
  }, [active, e.id, queryClient, trpc]);

  const spans = trace.data?.spans;
  const waterfall = useMemo(() => (spans ? waterfallOf(spans, { createdAt: e.createdAt, endMs: active ? now : undefined, rootPending: active }) : null), [spans, e.createdAt, active, now]);
  const selected = spans?.find((s) => s.id === selectedId) ?? null;

  const count = spans?.length ?? 0;
  /** A replay's steps taken as recorded: they made no call, so they have no span. */
  const recorded = Math.min(e.replayOf?.fromStep ?? 0, e.steps.length);
  const aside = (
    <span className="flex items-center gap-1.5 text-xs text-slate-500" data-testid="trace-summary">
      {active && trace.data && <Spinner className="size-3 text-indigo-500" />}
      {trace.data ? `${count === 1 ? '1 span' : `${count} spans`}${waterfall && count > 0 && !active ? ` · ${formatDuration(waterfall.totalMs)}` : ''}` : null}
    </span>
  );

  return (
    <Section title="Trace" testId="execution-trace" aside={aside}>
      {trace.isPending ? (
        <div className="space-y-2 px-4 py-4 sm:px-5" aria-busy="true" aria-label="Loading the trace" data-testid="trace-loading">
          {[0, 1, 2].map((i) => (
            <div key={i} className="h-8 animate-pulse rounded bg-slate-100" />
          ))}
        </div>
      ) : trace.isError && !trace.data ? (
        <LoadError what="The trace" error={trace.error} onRetry={() => void trace.refetch()} testId="trace-error" />
      ) : count === 0 || !waterfall ? (
        <p className="flex items-center justify-center gap-2 px-4 py-6 text-center text-sm text-slate-500 sm:px-5" data-testid="trace-empty">
          {active && e.status !== 'requires_action' && <Spinner className="size-3.5" />}
          {active ? 'The trace appears as the run’s calls end.' : 'No spans were recorded for this run.'}
        </p>
      ) : (
        <div ref={body}>
          {recorded > 0 && (
            <p className="border-b border-slate-100 px-4 py-2 text-xs text-slate-500 sm:px-5" data-testid="trace-recorded-note">
              {recorded === 1 ? 'Step 1 was' : `Steps 1–${recorded} were`} taken from the replayed execution as recorded: no model or tool call, so no span.
            </p>
          )}
          <TraceWaterfall waterfall={waterfall} live={active} selectedId={selectedId} onSelect={(id) => setSelectedId((current) => (current === id ? null : id))} />
          {selected ? (
            <SpanDetails
              key={selected.id}
              span={selected}
              traceStartMs={waterfall.startMs}
              steps={e.steps}
              agentId={e.agentId}
              onClose={close}
              onReplayFrom={onReplayFrom}
            />
          ) : (
            <p className="border-t border-slate-100 px-4 py-3 text-xs text-slate-500 sm:px-5" data-testid="trace-hint">
              Select a span to see its details: status, timings, tokens, cost and attributes.
            </p>
          )}
        </div>
      )}
    </Section>
  );
}
