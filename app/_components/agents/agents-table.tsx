import Link from 'next/link';
import type { AgentItem } from '@/app/_lib/types';
import { CARD_ROW, CardTable, CELL, DateCell, LABEL, OpenCell } from '../card-table';
import { Badge } from '../ui';
import { ProviderWarning } from './provider-status';

const COLUMNS = ['Name', 'Model', 'Tools', 'Limits', 'Updated', ''];

export function ModelBadge({ model }: { model: string }) {
  return (
    <code className="inline-block max-w-full truncate rounded bg-slate-100 px-1.5 py-0.5 align-middle font-mono text-xs text-slate-700" title={model} data-testid="agent-model">
      {model}
    </code>
  );
}

// Below lg the rows become cards (see CardTable); the name links to the agent's page, and on a
// card the whole card is the link's target.
export function AgentsTable({ agents }: { agents: AgentItem[] }) {
  return (
    <CardTable columns={COLUMNS} testId="agents-table">
      {agents.map((a) => (
        <tr key={a.id} data-testid="agent-row" data-agent-id={a.id} className={CARD_ROW}>
          <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:max-w-md lg:min-w-56`}>
            <Link href={`/dashboard/agents/${a.id}`} className="font-medium break-words text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0">
              {a.name}
            </Link>
            {a.description && <p className="mt-0.5 line-clamp-2 text-xs break-words text-slate-500">{a.description}</p>}
          </td>
          <td className={`${CELL} min-w-0`}>
            <span className={LABEL}>Model</span>
            <ModelBadge model={a.model} />
            <ProviderWarning agent={a} className="mt-1" />
          </td>
          <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
            <span className={LABEL}>Tools</span>
            {a.tools.length === 0 ? (
              <span className="text-slate-500">None</span>
            ) : (
              <span className="flex flex-wrap gap-1">
                {a.tools.slice(0, 3).map((t) => (
                  <Badge key={t.name} className="font-mono">
                    {t.name}
                  </Badge>
                ))}
                {a.tools.length > 3 && <Badge>+{a.tools.length - 3}</Badge>}
              </span>
            )}
          </td>
          <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
            <span className={LABEL}>Limits</span>
            {a.maxSteps} steps · {a.timeoutSeconds} s
          </td>
          <DateCell label="Updated" iso={a.updatedAt} />
          <OpenCell href={`/dashboard/agents/${a.id}`} name={a.name} />
        </tr>
      ))}
    </CardTable>
  );
}

export function TableSkeleton({ label, testId }: { label: string; testId: string }) {
  return (
    <div className="divide-y divide-slate-100" data-testid={testId} aria-busy="true" aria-label={label}>
      {[0, 1, 2].map((i) => (
        <div key={i} className="flex animate-pulse items-center gap-6 px-4 py-4">
          <div className="h-4 w-32 rounded bg-slate-200" />
          <div className="h-4 w-28 rounded bg-slate-200 max-sm:hidden" />
          <div className="h-4 flex-1 rounded bg-slate-100" />
          <div className="h-4 w-20 rounded bg-slate-200" />
        </div>
      ))}
    </div>
  );
}
