import type { ReactNode } from 'react';
import { formatCount, formatDate, formatRelative } from '@/app/_lib/format';
import type { KeyItem } from '@/app/_lib/types';
import { CardTable, CELL, DayCell, LABEL } from '../card-table';
import { Badge, Button } from '../ui';

// "Requests (24 h)" on two lines, so the table still fits a 1280 px screen.
const COLUMNS: ReactNode[] = ['Name', 'Key', 'Environment', 'Scopes', 'Last used', <>Requests<br />(24 h)</>, 'Expires', 'Created', ''];

function Expiry({ expiresAt, now }: { expiresAt: string | null; now: number }) {
  if (!expiresAt) return <span className="text-slate-500">Never</span>;
  if (new Date(expiresAt).getTime() <= now) {
    return (
      <Badge tone="red" title={formatDate(expiresAt)}>
        Expired
      </Badge>
    );
  }
  return <span title={formatDate(expiresAt)}>{formatDate(expiresAt)}</span>;
}

/** `requests`: each key's API requests in the last 24 hours (undefined until known). */
export function KeysTable({
  keys,
  now,
  requests,
  onRevoke,
}: {
  keys: KeyItem[];
  now: number;
  requests: ReadonlyMap<string, number> | undefined;
  onRevoke: (key: KeyItem) => void;
}) {
  return (
    <CardTable columns={COLUMNS} blankLabel="Actions" testId="keys-table">
      {keys.map((k) => (
        <tr
          key={k.id}
          data-testid="key-row"
          data-key-id={k.id}
          className="align-top max-lg:grid max-lg:grid-cols-6 max-lg:items-center max-lg:gap-x-3 max-lg:gap-y-3 max-lg:p-4 lg:hover:bg-slate-50/60"
        >
          <td className={`${CELL} font-medium break-words text-slate-900 max-lg:col-span-4 lg:min-w-40`}>{k.name}</td>
          <td className={`${CELL} max-lg:col-span-4 max-lg:row-start-2`}>
            <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs whitespace-nowrap text-slate-700" data-testid="key-prefix">
              {k.prefix}…
            </code>
          </td>
          <td className={`${CELL} max-lg:col-span-2 max-lg:row-start-2 max-lg:justify-self-end`}>
            <Badge tone={k.environment === 'test' ? 'amber' : 'green'}>{k.environment}</Badge>
          </td>
          <td className={`${CELL} max-lg:col-span-6`}>
            <div className="flex flex-wrap gap-1 lg:max-w-sm lg:min-w-56">
              {k.scopes.length === 0 && <span className="text-slate-400">None</span>}
              {k.scopes.map((s) => (
                <Badge key={s} className="font-mono">
                  {s}
                </Badge>
              ))}
            </div>
          </td>
          <td className={`${CELL} text-slate-600 max-lg:col-span-3 lg:whitespace-nowrap`} title={k.lastUsed ? formatDate(k.lastUsed) : undefined}>
            <span className={LABEL}>Last used</span>
            {k.lastUsed ? formatRelative(k.lastUsed, now) : <span className="text-slate-500">Never</span>}
          </td>
          <td className={`${CELL} text-slate-600 tabular-nums max-lg:col-span-3 lg:whitespace-nowrap`} data-testid="key-requests-24h">
            <span className={LABEL}>Requests (24 h)</span>
            {requests === undefined ? <span className="text-slate-400">—</span> : formatCount(requests.get(k.id) ?? 0)}
          </td>
          <td className={`${CELL} text-slate-600 max-lg:col-span-3 lg:whitespace-nowrap`}>
            <span className={LABEL}>Expires</span>
            <Expiry expiresAt={k.expiresAt} now={now} />
          </td>
          <DayCell label="Created" iso={k.createdAt} className="max-lg:col-span-3" />
          <td className="px-4 py-2 text-right max-lg:col-span-2 max-lg:col-start-5 max-lg:row-start-1 max-lg:-my-2 max-lg:-mr-3 max-lg:justify-self-end max-lg:p-0">
            <Button variant="dangerGhost" onClick={() => onRevoke(k)} aria-label={`Revoke ${k.name}`}>
              Revoke
            </Button>
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

export function KeysSkeleton() {
  return (
    <div className="divide-y divide-slate-100" data-testid="keys-loading" aria-busy="true" aria-label="Loading keys">
      {[0, 1, 2].map((i) => (
        <div key={i} className="flex animate-pulse items-center gap-6 px-4 py-4">
          <div className="h-4 w-32 rounded bg-slate-200" />
          <div className="h-4 w-36 rounded bg-slate-200" />
          <div className="h-4 w-12 rounded bg-slate-200" />
          <div className="h-4 flex-1 rounded bg-slate-100" />
          <div className="h-4 w-20 rounded bg-slate-200" />
        </div>
      ))}
    </div>
  );
}
