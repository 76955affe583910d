import type { ReactNode } from 'react';
import { formatCount, formatDuration } from '@/app/_lib/format';
import type { ExecutionUsageRow, RequestUsageRow } from '@/app/_lib/types';
import { costSummary, errorsOf, failureRate, formatCompact, formatPercent, type ExecutionGroup } from '@/app/_lib/usage';
import { Card } from '../ui';

// The figures at the top of the Usage page, from the `totals` of the whole range. A figure and
// its line wrap rather than cut off on a narrow card.

function Figure({ label, value, title, detail, testId }: { label: string; value: string; title?: string; detail: ReactNode; testId: string }) {
  return (
    <Card className="min-w-0 px-4 py-3" data-testid={testId}>
      <p className="text-xs font-medium text-slate-500">{label}</p>
      <p className="mt-1 text-xl font-semibold tracking-tight [overflow-wrap:anywhere] text-slate-900 tabular-nums sm:text-2xl" title={title} data-testid={`${testId}-value`}>
        {value}
      </p>
      <p className="mt-0.5 text-xs [overflow-wrap:anywhere] text-slate-500" data-testid={`${testId}-detail`}>
        {detail}
      </p>
    </Card>
  );
}

export function Summary({
  executions: e,
  requests: r,
  models,
  testMode,
}: {
  executions: ExecutionUsageRow;
  requests: RequestUsageRow;
  /** The range's models, to tell the priced part of an unknown cost. */
  models: ExecutionGroup[];
  testMode: boolean;
}) {
  const p95 = e.durationMs?.p95;
  const cost = costSummary(e.costUsd, models, testMode);
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-6" data-testid="usage-summary">
      <Figure label="Executions" value={formatCount(e.executions)} detail={`${formatCount(e.succeeded)} succeeded`} testId="summary-executions" />
      <Figure
        label="Failure rate"
        value={formatPercent(failureRate(e))}
        detail={`${formatCount(e.failed)} failed · ${formatCount(e.cancelled)} cancelled`}
        testId="summary-failure-rate"
      />
      <Figure
        label="Tokens"
        value={formatCompact(e.totalTokens)}
        title={`${formatCount(e.totalTokens)} tokens`}
        detail={`${formatCompact(e.inputTokens)} in · ${formatCompact(e.outputTokens)} out`}
        testId="summary-tokens"
      />
      <Figure
        label="Estimated cost"
        value={cost.value}
        detail={cost.detail}
        testId="summary-cost"
      />
      <Figure
        label="p95 duration"
        value={p95 === undefined ? '—' : formatDuration(p95)}
        detail={e.durationMs ? `p50 ${formatDuration(e.durationMs.p50)}` : 'No runs'}
        testId="summary-p95"
      />
      <Figure label="API requests" value={formatCount(r.requests)} detail={`${formatCount(errorsOf(r))} ${errorsOf(r) === 1 ? 'error' : 'errors'}`} testId="summary-requests" />
    </div>
  );
}

export function SummarySkeleton() {
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-6">
      {[0, 1, 2, 3, 4, 5].map((i) => (
        <Card key={i} className="h-[5.25rem] animate-pulse px-4 py-3">
          <div className="h-3 w-20 rounded bg-slate-200" />
          <div className="mt-2 h-6 w-16 rounded bg-slate-200" />
          <div className="mt-2 h-3 w-24 rounded bg-slate-100" />
        </Card>
      ))}
    </div>
  );
}
