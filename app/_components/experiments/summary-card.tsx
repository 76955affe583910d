import Link from 'next/link';
import { formatInterval, formatScore, formatShare, isEnded, plusMinus, scorerNames } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { CardTable, CELL, LABEL, type Column } from '../card-table';
import { Card } from '../ui';
import { DiffValue } from './score-parts';

// An experiment's summary once it ended, by scorer: the mean ± half its 95 % interval (the
// interval itself below), the pass rate and how many items were scored; with a baseline, the
// baseline's mean and the difference with its interval (paired over the items both scored, else
// Welch's), green or red when the interval excludes 0. Below lg each scorer is a card.

export function SummaryCard({ experiment: e, baselineName }: { experiment: Experiment; baselineName: string | null }) {
  const names = scorerNames(e.scorers);
  const comparison = e.comparison;
  const columns: Column[] = ['Scorer', 'Mean', 'Pass rate', 'Scored', ...(comparison ? ['Baseline', 'Difference'] : [])];
  return (
    <Card className="overflow-hidden" data-testid="experiment-summary">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="font-semibold text-slate-900">Summary</h2>
        {e.baselineExperimentId && (
          <p className="min-w-0 text-xs text-slate-500" data-testid="experiment-baseline">
            Compared with{' '}
            <Link href={`/dashboard/experiments/${e.baselineExperimentId}`} className="font-medium wrap-anywhere text-indigo-600 hover:text-indigo-500">
              {baselineName ?? e.baselineExperimentId}
            </Link>
          </p>
        )}
      </div>
      {!e.summary ? (
        <p className="px-4 py-6 text-sm text-slate-500 sm:px-5" data-testid="experiment-summary-pending">
          {isEnded(e.status)
            ? 'No summary: nothing was scored.'
            : 'The means, their intervals and the pass rates are computed when the experiment ends; the results below fill in as items are scored.'}
        </p>
      ) : (
        <CardTable columns={columns} testId="summary-table">
          {names.map((name) => {
            const s = e.summary?.[name];
            const c = comparison?.[name];
            return (
              <tr key={name} className="align-top max-lg:grid max-lg:grid-cols-2 max-lg:gap-x-3 max-lg:gap-y-3 max-lg:p-4" data-testid="summary-row" data-scorer={name}>
                <td className={`${CELL} max-lg:col-span-2`}>
                  <code className="font-mono text-sm font-semibold break-all text-slate-900">{name}</code>
                </td>
                <td className={`${CELL} lg:whitespace-nowrap`} data-testid="summary-mean">
                  <span className={LABEL}>Mean</span>
                  <span className="text-base font-semibold text-slate-900 tabular-nums">{formatScore(s?.mean)}</span>
                  {plusMinus(s?.ci95) && <span className="ml-1.5 text-sm text-slate-500 tabular-nums">{plusMinus(s?.ci95)}</span>}
                  <span className="block text-xs text-slate-500 tabular-nums" data-testid="summary-interval">
                    {s?.ci95 ? `95% ${formatInterval(s.ci95)}` : 'no interval'}
                  </span>
                </td>
                <td className={`${CELL} text-slate-800 tabular-nums`} data-testid="summary-pass-rate">
                  <span className={LABEL}>Pass rate</span>
                  {formatShare(s?.passRate)}
                </td>
                <td className={`${CELL} text-slate-800 tabular-nums`} data-testid="summary-scored">
                  <span className={LABEL}>Scored</span>
                  {s?.scored ?? 0} {s?.scored === 1 ? 'item' : 'items'}
                </td>
                {comparison && (
                  <>
                    <td className={`${CELL} text-slate-800 tabular-nums`} data-testid="summary-baseline-mean">
                      <span className={LABEL}>Baseline</span>
                      {c ? formatScore(c.baselineMean) : <span className="text-slate-400">Not in the baseline</span>}
                    </td>
                    <td className={CELL}>
                      <span className={LABEL}>Difference</span>
                      {c ? <DiffValue diff={c.diff} ci={c.ci95} note={c.ci95 ? (c.paired ? 'paired' : 'Welch') : undefined} testId="summary-diff" /> : <span className="text-slate-400">—</span>}
                    </td>
                  </>
                )}
              </tr>
            );
          })}
        </CardTable>
      )}
    </Card>
  );
}
