import Link from 'next/link';
import { formatScore, mainScore } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { CARD_ROW, CardTable, CELL, DateCell, LABEL, OpenCell, type Column } from '../card-table';
import { ExperimentStatusBadge, ProgressBar } from './experiment-status';

// The experiments list: each its name (the link), the agent and the version it ran, the dataset,
// its status and progress, the first scorer's mean once it ended, and when it was made. Below lg
// each row is a card, the whole card its link.

const COLUMNS: Column[] = ['Experiment', 'Agent', 'Dataset', 'Status', 'Progress', 'Score', { label: 'Created', className: 'max-xl:hidden' }, ''];

const nameOr = (names: ReadonlyMap<string, string>, id: string) => names.get(id) ?? <code className="font-mono text-xs">{id}</code>;

export function ExperimentsTable({
  experiments,
  agentNames,
  datasetNames,
}: {
  experiments: Experiment[];
  agentNames: ReadonlyMap<string, string>;
  datasetNames: ReadonlyMap<string, string>;
}) {
  return (
    <CardTable columns={COLUMNS} testId="experiments-table">
      {experiments.map((e) => {
        const score = mainScore(e);
        return (
          <tr key={e.id} className={CARD_ROW} data-testid="experiment-row" data-experiment-id={e.id} data-status={e.status}>
            <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:min-w-56`}>
              <Link
                href={`/dashboard/experiments/${e.id}`}
                className="font-medium wrap-anywhere text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0"
                data-testid="experiment-row-name"
              >
                {e.name}
              </Link>
              <code className="mt-0.5 block truncate font-mono text-xs text-slate-500">{e.id}</code>
            </td>
            <td className={`${CELL} min-w-0 text-slate-700`} data-testid="experiment-row-agent">
              <span className={LABEL}>Agent</span>
              <span className="block truncate lg:max-w-44">{nameOr(agentNames, e.agentId)}</span>
              <span className="block text-xs text-slate-500" data-testid="experiment-row-version">
                v{e.agentVersion}
                {e.label && ` · ${e.label}`}
              </span>
            </td>
            <td className={`${CELL} min-w-0 text-slate-700`} data-testid="experiment-row-dataset">
              <span className={LABEL}>Dataset</span>
              <span className="block truncate lg:max-w-44">{nameOr(datasetNames, e.datasetId)}</span>
            </td>
            <td className={CELL}>
              <span className={LABEL}>Status</span>
              <ExperimentStatusBadge status={e.status} />
            </td>
            <td className={CELL}>
              <span className={LABEL}>Progress</span>
              <ProgressBar experiment={e} className="max-lg:mt-1" />
            </td>
            <td className={`${CELL} text-slate-700 lg:whitespace-nowrap`} data-testid="experiment-row-score">
              <span className={LABEL}>Score</span>
              {score ? (
                <>
                  <span className="font-semibold text-slate-900 tabular-nums">{formatScore(score.mean)}</span>
                  <span className="block font-mono text-xs text-slate-500">{score.name}</span>
                </>
              ) : (
                <span className="text-slate-400">—</span>
              )}
            </td>
            <DateCell label="Created" iso={e.createdAt} className="max-lg:justify-self-end max-lg:text-right lg:max-xl:hidden" />
            <OpenCell href={`/dashboard/experiments/${e.id}`} name={e.name} />
          </tr>
        );
      })}
    </CardTable>
  );
}
