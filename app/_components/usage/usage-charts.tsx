'use client';

import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatCount, formatDuration } from '@/app/_lib/format';
import type { Budget, ExecutionUsage, RequestUsage } from '@/app/_lib/types';
import { bucketLabel, bucketTitle, formatCompact, formatUsd, type ExecutionGroup, type Granularity } from '@/app/_lib/usage';
import type { UsageTableId } from '@/app/_lib/usage-csv';
import { ChartCard } from './chart-card';
import type { TableColumn, TableRow } from './data-table';
import { CostBars, CostPerBucket, Lines, StackedBars, type LimitLine, type Point, type SeriesSpec } from './charts';

// The six charts of the Usage page, each with the table of its numbers.

const STATUS: SeriesSpec[] = [
  { key: 'succeeded', label: 'Succeeded', color: '#10b981' },
  { key: 'failed', label: 'Failed', color: '#ef4444' },
  { key: 'cancelled', label: 'Cancelled', color: '#f59e0b' },
];
const TOKENS: SeriesSpec[] = [
  { key: 'inputTokens', label: 'Input', color: '#6366f1' },
  { key: 'outputTokens', label: 'Output', color: '#38bdf8' },
];
const DURATION: SeriesSpec[] = [
  { key: 'p50', label: 'p50', color: '#6366f1' },
  { key: 'p95', label: 'p95', color: '#f43f5e' },
];
const OUTCOMES: SeriesSpec[] = [
  { key: 'succeeded', label: 'Succeeded', color: '#10b981' },
  { key: 'clientErrors', label: 'Client errors', color: '#94a3b8' },
  { key: 'unauthorized', label: '401', color: '#8b5cf6' },
  { key: 'forbidden', label: '403', color: '#d946ef' },
  { key: 'rateLimited', label: '429', color: '#f59e0b' },
  { key: 'serverErrors', label: '5xx', color: '#ef4444' },
];

const count = (n: number) => formatCount(n);
const ms = (n: number | null | undefined) => (n === null || n === undefined ? '—' : formatDuration(n));
const col = (label: string, numeric = true): TableColumn => ({ label, numeric });
/** An axis tick's duration: "750ms", "1.5s", "2m". */
const shortDuration = (n: number) => (n < 1000 ? `${Math.round(n)}ms` : n < 60_000 ? `${Number((n / 1000).toFixed(1))}s` : `${Number((n / 60_000).toFixed(1))}m`);

/** Downloads one of the page's tables as CSV; null while the page's numbers are not ready. */
export type CsvExport = ((table: UsageTableId) => void) | null;

const MAX_LIMIT_LABEL = 28;
const limitLabel = (b: Budget, usd: number) => `${b.name.length > MAX_LIMIT_LABEL ? `${b.name.slice(0, MAX_LIMIT_LABEL - 1)}…` : b.name} · ${formatUsd(usd)}/day`;

/**
 * The workspace's budgets in USD on the cost-per-bucket chart, where the scale fits: a daily
 * budget's limit against day buckets. Hour buckets and the other periods get a sentence instead
 * (a week's or a month's cap has no meaning against one day's bar).
 */
function budgetMarks(budgets: readonly Budget[], g: Granularity): { limits: LimitLine[]; note: ReactNode } {
  const inUsd = budgets.flatMap((b) => (b.target.type === 'workspace' && 'usd' in b.limit ? [{ budget: b, usd: Number(b.limit.usd) }] : []));
  const daily = inUsd.filter(({ budget }) => budget.period === 'day');
  const limits = g === 'day' ? daily.map(({ budget, usd }) => ({ key: budget.id, label: limitLabel(budget, usd), value: usd })) : [];
  const zones = [...new Set(daily.map(({ budget }) => budget.timezone))].filter((z) => z !== 'UTC');
  const others = inUsd.length - daily.length;
  if (inUsd.length === 0) return { limits, note: null };
  return {
    limits,
    note: (
      <span data-testid="chart-spend-budgets">
        {daily.length > 0 &&
          (g === 'day'
            ? `Dashed: the workspace’s daily USD ${daily.length === 1 ? 'budget' : 'budgets'} at the limit${zones.length ? ` (${daily.length === 1 ? 'its' : 'their'} days start at midnight in ${zones.join(', ')}, the bars’ in UTC)` : ''}. `
            : 'The workspace’s daily USD budgets are drawn in the 7, 30 and 90 day ranges. ')}
        {others > 0 && (
          <>
            Weekly, monthly and total budgets are not drawn (their limits are not per day): see{' '}
            <Link href="/dashboard/budgets" className="font-medium text-indigo-600 hover:text-indigo-500">
              Budgets
            </Link>
            .
          </>
        )}
      </span>
    ),
  };
}

export function UsageCharts({
  executions,
  requests,
  models,
  budgets,
  csv,
}: {
  executions: ExecutionUsage;
  requests: RequestUsage;
  models: ExecutionGroup[];
  /** The workspace's budgets (marked on the cost per bucket where their period fits). */
  budgets: readonly Budget[];
  csv: CsvExport;
}) {
  const download = (table: UsageTableId) => (csv ? () => csv(table) : null);
  const g = executions.granularity;
  const bucket = col(g === 'hour' ? 'Hour (UTC)' : 'Day (UTC)', false);

  const exec = executions.data.map(({ start, results: [row] }) => ({ start, row: row! }));
  const points: Point[] = exec.map(({ start, row }) => ({
    label: bucketLabel(start, g),
    title: bucketTitle(start, g),
    succeeded: row.succeeded,
    failed: row.failed,
    cancelled: row.cancelled,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    p50: row.durationMs?.p50 ?? null,
    p95: row.durationMs?.p95 ?? null,
    cost: row.costUsd,
  }));
  const marks = budgetMarks(budgets, g);
  const rowOf = (start: string, cells: TableRow['cells']): TableRow => ({ key: start, cells: [bucketTitle(start, g), ...cells] });

  const req = requests.data.map(({ start, results: [row] }) => ({ start, row: row! }));
  const requestPoints: Point[] = req.map(({ start, row }) => ({
    label: bucketLabel(start, requests.granularity),
    title: bucketTitle(start, requests.granularity),
    succeeded: row.succeeded,
    clientErrors: row.clientErrors,
    unauthorized: row.unauthorized,
    forbidden: row.forbidden,
    rateLimited: row.rateLimited,
    serverErrors: row.serverErrors,
  }));

  const totals = executions.totals;
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <ChartCard
        title="Executions by status"
        description="Executions that ended in each bucket."
        empty={totals.executions === 0 ? 'No executions ended in this range.' : null}
        chart={<StackedBars data={points} series={STATUS} format={count} axisFormat={formatCompact} />}
        table={{
          columns: [bucket, col('Succeeded'), col('Failed'), col('Cancelled'), col('Total')],
          rows: exec.map(({ start, row }) => rowOf(start, [count(row.succeeded), count(row.failed), count(row.cancelled), count(row.executions)])),
        }}
        csv={download('executions')}
        testId="chart-executions"
      />
      <ChartCard
        title="Tokens"
        description="Input and output tokens of those executions."
        empty={totals.totalTokens === 0 ? 'No tokens were used in this range.' : null}
        chart={<StackedBars data={points} series={TOKENS} format={count} axisFormat={formatCompact} />}
        table={{
          columns: [bucket, col('Input'), col('Output'), col('Total')],
          rows: exec.map(({ start, row }) => rowOf(start, [count(row.inputTokens), count(row.outputTokens), count(row.totalTokens)])),
        }}
        csv={download('tokens')}
        testId="chart-tokens"
      />
      <ChartCard
        title={g === 'day' ? 'Estimated cost per day' : 'Estimated cost per hour'}
        description={
          <>
            All models together, by UTC {g}, from the operator’s price table. {marks.note}
          </>
        }
        empty={totals.executions === 0 ? 'No executions ended in this range.' : null}
        chart={<CostPerBucket data={points} color="#0ea5e9" limits={marks.limits} />}
        table={{
          columns: [bucket, col('Executions'), col('Estimated cost')],
          rows: exec.map(({ start, row }) => rowOf(start, [count(row.executions), formatUsd(row.costUsd)])),
        }}
        csv={download('spend')}
        testId="chart-spend"
      />
      <ChartCard
        title="Estimated cost by model"
        description="From the operator’s price table. Test and sandbox runs, and runs that used no tokens, cost nothing; tokens of a live model without a price show “unknown”."
        empty={models.length === 0 ? 'No executions ended in this range.' : null}
        chart={<CostBars data={models.map((m) => ({ model: m.id, cost: m.costUsd, costLabel: formatUsd(m.costUsd) }))} color="#6366f1" />}
        table={{
          columns: [col('Model', false), col('Executions'), col('Tokens'), col('Estimated cost')],
          rows: models.map((m) => ({ key: m.id, cells: [m.id, count(m.executions), count(m.totalTokens), formatUsd(m.costUsd)] })),
        }}
        csv={download('cost')}
        testId="chart-cost"
      />
      <ChartCard
        className="lg:col-span-2"
        title="Duration"
        description="How long executions ran, from start to end: median (p50) and p95 of each bucket."
        empty={totals.durationMs === null ? 'No execution ran in this range.' : null}
        chart={<Lines data={points} series={DURATION} format={(n) => formatDuration(n)} axisFormat={shortDuration} />}
        table={{
          columns: [bucket, col('Executions'), col('p50'), col('p95')],
          rows: exec.map(({ start, row }) => rowOf(start, [count(row.executions), ms(row.durationMs?.p50), ms(row.durationMs?.p95)])),
        }}
        csv={download('duration')}
        testId="chart-duration"
      />
      <ChartCard
        className="lg:col-span-2"
        title="API requests by outcome"
        description="Requests to /v1 made with this environment’s keys, refusals included: client errors are 4xx other than 401, 403 and 429."
        empty={requests.totals.requests === 0 ? 'No API requests were made with this environment’s keys in this range.' : null}
        chart={<StackedBars data={requestPoints} series={OUTCOMES} format={count} axisFormat={formatCompact} />}
        table={{
          columns: [bucket, ...OUTCOMES.map((o) => col(o.label)), col('Total')],
          rows: req.map(({ start, row }) =>
            rowOf(start, [count(row.succeeded), count(row.clientErrors), count(row.unauthorized), count(row.forbidden), count(row.rateLimited), count(row.serverErrors), count(row.requests)]),
          ),
        }}
        csv={download('requests')}
        testId="chart-requests"
      />
    </div>
  );
}
