'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { errorMessage } from '@/app/_lib/errors';
import { downloadCsv } from '@/app/_lib/csv';
import { csvFileName, usageCsv, type NamedAgent, type NamedKey, type UsageSnapshot, type UsageTableId } from '@/app/_lib/usage-csv';
import { RANGES, rangeOf, type RangeId } from '@/app/_lib/usage';
import { useEnvironment, useTRPC } from '../providers';
import { EmptyState, LoadError } from '../states';
import { Alert, ButtonLink, Card, Spinner } from '../ui';
import { Summary, SummarySkeleton } from './summary';
import { TopAgents, TopKeys } from './top-tables';
import { UsageCharts, type CsvExport } from './usage-charts';
import { REFRESH_MS, TOP, useUsage, useWindow } from './use-usage';

function ChartIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" className="size-6">
      <path d="M4 20V4M4 20h16" />
      <path d="M8 16v-4M12 16V8M16 16v-6" />
    </svg>
  );
}

function RangeSwitch({ value, onChange }: { value: RangeId; onChange: (id: RangeId) => void }) {
  return (
    <div role="radiogroup" aria-label="Range" className="inline-flex rounded-lg bg-slate-200/70 p-0.5 text-sm" data-testid="usage-range">
      {RANGES.map((r) => {
        const selected = r.id === value;
        return (
          <button
            key={r.id}
            type="button"
            role="radio"
            aria-checked={selected}
            aria-label={r.title}
            onClick={() => onChange(r.id)}
            className={`rounded-md px-3 py-1 font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:outline-indigo-600 ${selected ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900'}`}
            data-testid={`range-${r.id}`}
          >
            {r.label}
          </button>
        );
      })}
    </div>
  );
}

function LoadingCards() {
  return (
    <div className="space-y-6" aria-busy="true" aria-label="Loading usage" data-testid="usage-loading">
      <SummarySkeleton />
      <div className="grid gap-6 lg:grid-cols-2">
        {[0, 1, 2, 3].map((i) => (
          <Card key={i} className="h-80 animate-pulse p-5">
            <div className="h-4 w-40 rounded bg-slate-200" />
            <div className="mt-6 h-56 rounded bg-slate-100" />
          </Card>
        ))}
      </div>
    </div>
  );
}

export function UsageView() {
  const { environment } = useEnvironment();
  const testMode = environment === 'test';
  // The range lives in the address (`?range=30d`): a view can be linked to, and it stays when
  // the environment switch remounts the page.
  const range = rangeOf(useSearchParams().get('range') ?? undefined);
  const usageWindow = useWindow(range);
  const usage = useUsage(usageWindow);
  // The workspace's budgets, marked on the cost chart; without them the chart is drawn all the same.
  const trpc = useTRPC();
  const budgets = useQuery(trpc.budgets.list.queryOptions({ limit: 100, targetType: 'workspace' }, { refetchInterval: REFRESH_MS }));

  // The browser's history API updates useSearchParams without a round trip to the server.
  const choose = (id: RangeId) => window.history.replaceState(null, '', `?range=${id}`);

  const agentList = usage.agentNames.data;
  const topAgents: NamedAgent[] = usage.topAgents.map((a) => {
    const known = agentList?.names.get(a.id);
    return { ...a, name: known?.name ?? null, deleted: !known && agentList?.complete === true };
  });
  const keyList = usage.keyNames.data;
  const topKeys: NamedKey[] = usage.keys.slice(0, TOP).map((k) => {
    const known = keyList?.names.get(k.id);
    return { ...k, name: known?.name ?? null, revoked: !known && keyList?.complete === true };
  });

  const executions = usage.executions.data;
  const requests = usage.requests.data;
  const snapshot: UsageSnapshot | null =
    executions && requests ? { environment, range, window: usageWindow, executions, requests, models: usage.models, agents: topAgents, keys: topKeys } : null;
  // Each card's CSV, once everything on the page is this range's and complete.
  const exportable = snapshot !== null && !usage.isUpdating && !usage.agentNames.isPending && !usage.keyNames.isPending;
  const csv: CsvExport = exportable ? (table: UsageTableId) => downloadCsv(csvFileName(snapshot, table), usageCsv(snapshot, table)) : null;
  const empty = executions && requests && !usage.isUpdating && executions.totals.executions === 0 && requests.totals.requests === 0;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Usage</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Executions and API requests in the {testMode ? 'test' : 'live'} environment, {range.title.toLowerCase()} by UTC {range.granularity}. Refreshes every{' '}
            {REFRESH_MS / 1000} seconds.
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {usage.isFetching && !usage.isPending && <Spinner className="text-slate-400" />}
          <RangeSwitch value={range.id} onChange={choose} />
        </div>
      </div>

      {usage.isPending ? (
        <LoadingCards />
      ) : !usage.hasAll || !executions || !requests ? (
        <Card>
          <LoadError what="Usage" error={usage.error} onRetry={() => void usage.refetch()} testId="usage-error" />
        </Card>
      ) : empty ? (
        <Card>
          <EmptyState
            icon={<ChartIcon />}
            tone={testMode ? 'amber' : 'indigo'}
            title={`No ${testMode ? 'test' : 'live'} usage in the ${range.title.toLowerCase()}`}
            action={<ButtonLink href="/dashboard/agents">Go to agents</ButtonLink>}
            testId="usage-empty"
          >
            Run an agent — in its playground, or with <code className="font-mono text-xs">POST /v1/agents/:id/execute</code> and one of your{' '}
            {testMode ? 'test' : 'live'} keys — and its executions, tokens and API requests show up here within seconds.
          </EmptyState>
        </Card>
      ) : (
        <div className={`space-y-6 transition-opacity ${usage.isUpdating ? 'opacity-60' : ''}`} aria-busy={usage.isUpdating} data-testid="usage-content">
          {usage.error && (
            <Alert tone="amber">
              Could not refresh: {errorMessage(usage.error)}{' '}
              <button type="button" className="font-semibold underline" onClick={() => void usage.refetch()}>
                Try again
              </button>
            </Alert>
          )}
          <Summary executions={executions.totals} requests={requests.totals} models={usage.models} testMode={testMode} />
          <UsageCharts executions={executions} requests={requests} models={usage.models} budgets={budgets.data?.data ?? []} csv={csv} />
          <TopAgents agents={topAgents} total={usage.agents.length} csv={csv && (() => csv('agents'))} />
          <TopKeys keys={topKeys} total={usage.keys.length} csv={csv && (() => csv('keys'))} />
        </div>
      )}
    </div>
  );
}
