'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { hasErrorCode } from '@/app/_lib/errors';
import { formatScore, formatShare, isEnded, joinResults, scorerNames, sharedScorers, worstFirst } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { useAgentNames } from '../agent-filter';
import { TableSkeleton } from '../agents/agents-table';
import { CardTable, CELL, LABEL } from '../card-table';
import { useTRPC } from '../providers';
import { Breadcrumb, EmptyState, ExperimentIcon, LoadError, PageSkeleton } from '../states';
import { Alert, ButtonLink, Card, SWITCH } from '../ui';
import { When } from '../when';
import { ExperimentStatusBadge } from './experiment-status';
import { CompareTable } from './compare-table';
import { DiffValue } from './score-parts';
import { RESULTS_CAP, useAllResults } from './use-all-results';
import { useDatasetNames } from './use-names';

// Two experiments side by side (`?a=…&b=…`, b against a): each one's header, the means and pass
// rates of the scorers they share with the difference (its 95 % interval when one is the other's
// baseline: the server's paired comparison), then their items joined by id — regressions first,
// the worst first — each with both scores by scorer. Up to RESULTS_CAP items of each are read.

type Side = 'a' | 'b';

function Column({ side, e, agentName }: { side: Side; e: Experiment; agentName: string | undefined }) {
  return (
    <Card className="min-w-0 space-y-1.5 px-4 py-3 sm:px-5" data-testid={`compare-${side}`}>
      <p className="text-xs font-semibold tracking-wide text-slate-500 uppercase">{side === 'a' ? 'A · before' : 'B · after'}</p>
      <p className="flex flex-wrap items-center gap-2">
        <Link href={`/dashboard/experiments/${e.id}`} className="min-w-0 font-semibold wrap-anywhere text-slate-900 hover:text-indigo-600" data-testid={`compare-${side}-name`}>
          {e.name}
        </Link>
        <ExperimentStatusBadge status={e.status} />
      </p>
      <p className="text-sm text-slate-600">
        {agentName ?? e.agentId} <span className="font-medium text-slate-800">v{e.agentVersion}</span> · <When iso={e.createdAt} />
      </p>
    </Card>
  );
}

/** The server's interval of b − a when one is the other's baseline. */
function serverDiff(a: Experiment, b: Experiment, name: string): { diff: number | null; ci: [number, number] | null; paired: boolean } | undefined {
  if (b.baselineExperimentId === a.id) {
    const c = b.comparison?.[name];
    return c ? { diff: c.diff, ci: c.ci95, paired: c.paired } : undefined;
  }
  if (a.baselineExperimentId === b.id) {
    const c = a.comparison?.[name];
    return c ? { diff: c.diff === null ? null : -c.diff, ci: c.ci95 ? [-c.ci95[1], -c.ci95[0]] : null, paired: c.paired } : undefined;
  }
  return undefined;
}

function SummaryTable({ a, b, shared }: { a: Experiment; b: Experiment; shared: string[] }) {
  return (
    <CardTable columns={['Scorer', 'A', 'B', 'Difference (b − a)']} testId="compare-summary">
      {shared.map((n) => {
        const sa = a.summary?.[n];
        const sb = b.summary?.[n];
        const server = serverDiff(a, b, n);
        const diff = server?.diff ?? (sa?.mean != null && sb?.mean != null ? sb.mean - sa.mean : null);
        return (
          <tr key={n} className="align-top max-lg:grid max-lg:grid-cols-2 max-lg:gap-x-3 max-lg:gap-y-2 max-lg:p-4" data-testid="compare-summary-row" data-scorer={n}>
            <td className={`${CELL} max-lg:col-span-2`}>
              <code className="font-mono text-sm font-semibold break-all text-slate-900">{n}</code>
            </td>
            {[sa, sb].map((s, i) => (
              <td key={i} className={`${CELL} tabular-nums`} data-testid={`compare-summary-${i === 0 ? 'a' : 'b'}`}>
                <span className={LABEL}>{i === 0 ? 'A' : 'B'}</span>
                <span className="font-semibold text-slate-900">{formatScore(s?.mean)}</span>
                <span className="block text-xs text-slate-500">{s ? `${formatShare(s.passRate)} pass` : 'no summary yet'}</span>
              </td>
            ))}
            <td className={`${CELL} max-lg:col-span-2`}>
              <span className={LABEL}>Difference (b − a)</span>
              <DiffValue diff={diff} ci={server ? server.ci : undefined} note={server?.ci ? (server.paired ? 'paired' : 'Welch') : undefined} testId="compare-summary-diff" />
            </td>
          </tr>
        );
      })}
    </CardTable>
  );
}

export function CompareView({ a: aId, b: bId }: { a: string; b: string }) {
  const trpc = useTRPC();
  const agentNames = useAgentNames();
  const datasetNames = useDatasetNames();
  const live = { refetchInterval: (q: { state: { data?: Experiment } }) => (q.state.data && !isEnded(q.state.data.status) ? 2_000 : false) };
  const retry = (n: number, err: unknown) => !hasErrorCode(err, 'resource_not_found') && n < 2;
  const a = useQuery({ ...trpc.experiments.get.queryOptions({ id: aId }), enabled: aId !== '', retry, ...live });
  const b = useQuery({ ...trpc.experiments.get.queryOptions({ id: bId }), enabled: bId !== '', retry, ...live });
  const ra = useAllResults(aId, { live: a.data !== undefined && !isEnded(a.data.status), enabled: a.data !== undefined });
  const rb = useAllResults(bId, { live: b.data !== undefined && !isEnded(b.data.status), enabled: b.data !== undefined });
  const [sorted, setSorted] = useState(true);

  const crumb = <Breadcrumb href="/dashboard/experiments" parent="Experiments" current="Compare" />;
  if (!aId || !bId) {
    return (
      <div className="space-y-6">
        {crumb}
        <Card>
          <EmptyState icon={<ExperimentIcon />} title="Choose two experiments" action={<ButtonLink href="/dashboard/experiments">Experiments</ButtonLink>} testId="compare-missing">
            Open an experiment and choose “Compare with…” to see it beside another of its dataset.
          </EmptyState>
        </Card>
      </div>
    );
  }
  if (a.isPending || b.isPending) return <PageSkeleton label="Loading the experiments" testId="compare-loading" />;
  if (a.isError || b.isError) {
    const err = a.error ?? b.error;
    return (
      <div className="space-y-6">
        {crumb}
        <Card>
          {hasErrorCode(err, 'resource_not_found') ? (
            <EmptyState icon={<ExperimentIcon />} title="No such experiment here" action={<ButtonLink href="/dashboard/experiments">Back to experiments</ButtonLink>} testId="compare-not-found">
              One of the two was not found: it may belong to the other environment.
            </EmptyState>
          ) : (
            <LoadError what="The experiments" error={err} onRetry={() => void Promise.all([a.refetch(), b.refetch()])} testId="compare-error" />
          )}
        </Card>
      </div>
    );
  }

  const ea = a.data;
  const eb = b.data;
  const namesA = scorerNames(ea.scorers);
  const namesB = scorerNames(eb.scorers);
  const shared = sharedScorers(namesA, namesB);
  const joined = ra.data && rb.data ? joinResults(ra.data.rows, rb.data.rows, shared) : [];
  const items = sorted ? worstFirst(joined) : joined;
  const regressed = joined.filter((i) => i.change === 'regressed').length;
  const onlyA = namesA.filter((n) => !shared.includes(n));
  const onlyB = namesB.filter((n) => !shared.includes(n));

  return (
    <div className="space-y-6" data-testid="compare-page">
      {crumb}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Compare experiments</h1>
          <p className="mt-1 text-sm text-slate-600">
            On{' '}
            <Link href={`/dashboard/datasets/${eb.datasetId}`} className="font-medium text-indigo-600 hover:text-indigo-500">
              {datasetNames.get(eb.datasetId) ?? eb.datasetId}
            </Link>
            : B against A, item by item.
          </p>
        </div>
        <ButtonLink href={`/dashboard/experiments/compare?a=${eb.id}&b=${ea.id}`} variant="secondary" data-testid="compare-swap">
          Swap A and B
        </ButtonLink>
      </div>
      {ea.datasetId !== eb.datasetId && <Alert tone="amber">They ran on different datasets: only the items they share (by id) are compared.</Alert>}
      <div className="grid gap-4 sm:grid-cols-2">
        <Column side="a" e={ea} agentName={agentNames.get(ea.agentId)} />
        <Column side="b" e={eb} agentName={agentNames.get(eb.agentId)} />
      </div>

      <Card className="overflow-hidden">
        <div className="border-b border-slate-200 px-4 py-3 sm:px-5">
          <h2 className="font-semibold text-slate-900">Scores</h2>
          {(onlyA.length > 0 || onlyB.length > 0) && (
            <p className="text-xs text-slate-500">
              Not shared: {[...onlyA.map((n) => `${n} (A)`), ...onlyB.map((n) => `${n} (B)`)].join(', ')}.
            </p>
          )}
        </div>
        {shared.length === 0 ? (
          <p className="px-4 py-6 text-sm text-slate-500 sm:px-5">The two experiments share no scorer: there is nothing to compare.</p>
        ) : (
          <SummaryTable a={ea} b={eb} shared={shared} />
        )}
      </Card>

      <Card className="overflow-hidden" data-testid="compare-items">
        <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 border-b border-slate-200 px-4 py-3 sm:px-5">
          <div>
            <h2 className="font-semibold text-slate-900">Items</h2>
            {joined.length > 0 && (
              <p className="text-xs text-slate-500" data-testid="compare-counts">
                {joined.length} {joined.length === 1 ? 'item' : 'items'} · {regressed} regressed in B
              </p>
            )}
          </div>
          <label className="flex cursor-pointer items-center gap-2 text-sm font-medium text-slate-700">
            <input type="checkbox" role="switch" checked={sorted} onChange={(ev) => setSorted(ev.target.checked)} className={SWITCH} data-testid="compare-regressions-first" />
            Regressions first
          </label>
        </div>
        {ra.isPending || rb.isPending ? (
          <TableSkeleton label="Loading the results" testId="compare-results-loading" />
        ) : ra.isError || rb.isError ? (
          <LoadError what="The results" error={ra.error ?? rb.error} onRetry={() => void Promise.all([ra.refetch(), rb.refetch()])} testId="compare-results-error" />
        ) : joined.length === 0 ? (
          <p className="px-4 py-6 text-sm text-slate-500 sm:px-5">No results yet.</p>
        ) : (
          <>
            <CompareTable items={items} scorers={shared} />
            {(ra.data?.truncated || rb.data?.truncated) && (
              <p className="border-t border-slate-100 px-4 py-3 text-sm text-slate-600 sm:px-5" data-testid="compare-truncated">
                Only the first {RESULTS_CAP.toLocaleString('en-US')} items of each experiment are compared.
              </p>
            )}
          </>
        )}
      </Card>
    </div>
  );
}
