import Link from 'next/link';
import { durationBetween, formatCount, formatDuration } from '@/app/_lib/format';
import type { Execution } from '@/app/_lib/types';
import { CardTable, CELL, LABEL } from '../card-table';
import { StatusBadge } from './status-badge';
import { TriggerBadge } from './trigger';
import { When } from '../when';

const COLUMNS = ['Status', 'Input', 'Agent', 'Started by', 'Model', 'Tokens', 'Duration', 'Created'];

// Below lg the rows become cards (see CardTable); the input links to the execution, and on a
// card the whole card is the link's target.
export function ExecutionsTable({ executions, agentNames, now }: { executions: Execution[]; agentNames: ReadonlyMap<string, string>; now: number }) {
  return (
    <CardTable columns={COLUMNS} testId="executions-table">
      {executions.map((e) => {
        const duration = durationBetween(e.startedAt, e.completedAt, now);
        return (
          <tr
            key={e.id}
            data-testid="execution-row"
            data-execution-id={e.id}
            className="relative align-top max-lg:grid max-lg:grid-cols-2 max-lg:gap-x-3 max-lg:gap-y-2.5 max-lg:p-4 max-lg:hover:bg-slate-50/60 lg:hover:bg-slate-50/60"
          >
            <td className={`${CELL} max-lg:row-start-1`}>
              <StatusBadge status={e.status} />
            </td>
            <td className={`${CELL} min-w-0 max-lg:col-span-2 max-lg:row-start-2 lg:max-w-sm lg:min-w-56`}>
              <Link href={`/dashboard/executions/${e.id}`} className="line-clamp-2 font-medium break-words text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0">
                {e.input}
              </Link>
              <code className="mt-0.5 block truncate font-mono text-xs text-slate-500">{e.id}</code>
            </td>
            <td className={`${CELL} min-w-0 text-slate-700`}>
              <span className={LABEL}>Agent</span>
              <span className="block truncate lg:max-w-48" title={e.agentId}>
                {agentNames.get(e.agentId) ?? <code className="font-mono text-xs">{e.agentId}</code>}
              </span>
            </td>
            <td className={`${CELL} text-slate-600`} data-testid="execution-trigger-cell" title={e.trigger.type === 'schedule' ? `Schedule ${e.trigger.scheduleId}` : undefined}>
              <span className={LABEL}>Started by</span>
              <TriggerBadge trigger={e.trigger} />
            </td>
            <td className={`${CELL} min-w-0 text-slate-600`}>
              <span className={LABEL}>Model</span>
              <code className="block truncate font-mono text-xs lg:whitespace-nowrap">{e.model}</code>
            </td>
            <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
              <span className={LABEL}>Tokens</span>
              {formatCount(e.usage.totalTokens)}
            </td>
            <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
              <span className={LABEL}>Duration</span>
              {duration === null ? <span className="text-slate-400">—</span> : formatDuration(duration)}
            </td>
            <td className={`${CELL} text-slate-600 max-lg:col-start-2 max-lg:row-start-1 max-lg:justify-self-end max-lg:text-xs lg:whitespace-nowrap`}>
              <When iso={e.createdAt} now={now} />
            </td>
          </tr>
        );
      })}
    </CardTable>
  );
}
