'use client';

import { useState } from 'react';
import { changeCounts, regressionsFirst } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { TableSkeleton } from '../agents/agents-table';
import { DatasetIcon, EmptyState, LoadError } from '../states';
import { Card, SWITCH } from '../ui';
import { ResultsTable } from './results-table';
import { RESULTS_CAP, type AllResults } from './use-all-results';

// The Results card of an experiment's page: its items in the dataset's order or — with a baseline,
// by default — regressions first (then unchanged, then improved), with how many went which way.

interface ResultsQuery {
  data: AllResults | undefined;
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => Promise<unknown>;
}

export function ResultsCard({ experiment: e, results, scorers }: { experiment: Experiment; results: ResultsQuery; scorers: string[] }) {
  const hasBaseline = e.baselineExperimentId !== null;
  const [sorted, setSorted] = useState(true);
  const rows = results.data?.rows ?? [];
  const shown = hasBaseline && sorted ? regressionsFirst(rows) : rows;
  const counts = changeCounts(rows);

  return (
    <Card className="overflow-hidden" data-testid="experiment-results">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 border-b border-slate-200 px-4 py-3 sm:px-5">
        <div className="min-w-0">
          <h2 className="font-semibold text-slate-900">Results</h2>
          {hasBaseline && rows.length > 0 && (
            <p className="text-xs text-slate-500" data-testid="results-change-counts">
              {counts.regressed} regressed · {counts.unchanged} unchanged · {counts.improved} improved
            </p>
          )}
        </div>
        {hasBaseline && (
          <label className="flex cursor-pointer items-center gap-2 text-sm font-medium text-slate-700">
            <input type="checkbox" role="switch" checked={sorted} onChange={(ev) => setSorted(ev.target.checked)} className={SWITCH} data-testid="regressions-first" />
            Regressions first
          </label>
        )}
      </div>
      {results.isPending ? (
        <TableSkeleton label="Loading the results" testId="results-loading" />
      ) : results.isError && rows.length === 0 ? (
        <LoadError what="The results" error={results.error} onRetry={() => void results.refetch()} testId="results-error" />
      ) : rows.length === 0 ? (
        <EmptyState icon={<DatasetIcon />} title="No results yet" testId="results-empty">
          Each item of the dataset shows here with its answer and scores once it has run.
        </EmptyState>
      ) : (
        <>
          <ResultsTable rows={shown} scorers={scorers} hasBaseline={hasBaseline} />
          {results.data?.truncated && (
            <p className="border-t border-slate-100 px-4 py-3 text-sm text-slate-600 sm:px-5" data-testid="results-truncated">
              The first {RESULTS_CAP.toLocaleString('en-US')} items are shown: read the rest with <code className="font-mono text-xs">GET /v1/experiments/{e.id}/results</code>.
            </p>
          )}
        </>
      )}
    </Card>
  );
}
