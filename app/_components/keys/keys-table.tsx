import { formatDateTime } from '@/app/_lib/dates';
import { formatCount } from '@/app/_lib/format';
import type { KeyItem } from '@/app/_lib/types';
import { CardTable, CELL, DateCell, LABEL, type Column } from '../card-table';
import { Badge, Button } from '../ui';
import { When, WhenLines } from '../when';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

// The table fits its card from lg (1024 px) up: the list shows one environment (the switch above
// it, and each prefix says it), so its badge is on the phone's card only; "Requests (24 h)" takes
// two lines; a date is its day above its time and zone; a name wraps anywhere rather than widening the
// table. Between lg and xl the Created column gives way.
const COLUMNS: Column[] = ['Name', 'Key', 'Scopes', 'Last used', <>Requests<br />(24 h)</>, 'Expires', { label: 'Created', className: 'max-xl:hidden' }, ''];

function Expiry({ expiresAt, now }: { expiresAt: string | null; now: number }) {
  if (!expiresAt) return <span className="text-slate-500">Never</span>;
  if (new Date(expiresAt).getTime() <= now) {
    return (
      <Badge tone="red" title={formatDateTime(expiresAt)}>
        Expired
      </Badge>
    );
  }
  return <WhenLines iso={expiresAt} />;
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
          <td className={`${CELL} font-medium wrap-anywhere text-slate-900 max-lg:col-span-4 lg:min-w-40`}>{k.name}</td>
          <td className={`${CELL} max-lg:col-span-6 max-lg:row-start-2 max-lg:flex max-lg:items-center max-lg:justify-between max-lg:gap-3`}>
            <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs whitespace-nowrap text-slate-700" data-testid="key-prefix">
              {k.prefix}…
            </code>
            <Badge tone={k.environment === 'test' ? 'amber' : 'green'} className="lg:hidden">
              {ENVIRONMENT_WORDS[k.environment]}
            </Badge>
          </td>
          <td className={`${CELL} max-lg:col-span-6`}>
            <div className="flex flex-wrap gap-1 lg:max-w-sm lg:min-w-40 xl:min-w-56">
              {k.scopes.length === 0 && <span className="text-slate-400">None</span>}
              {k.scopes.map((s) => (
                <Badge key={s} className="font-mono">
                  {s}
                </Badge>
              ))}
            </div>
          </td>
          <td className={`${CELL} text-slate-600 max-lg:col-span-3 lg:whitespace-nowrap`}>
            <span className={LABEL}>Last used</span>
            {k.lastUsed ? <When iso={k.lastUsed} now={now} /> : <span className="text-slate-500">Never</span>}
          </td>
          <td className={`${CELL} text-slate-600 tabular-nums max-lg:col-span-3 lg:whitespace-nowrap`} data-testid="key-requests-24h">
            <span className={LABEL}>Requests (24 h)</span>
            {requests === undefined ? <span className="text-slate-400">—</span> : formatCount(requests.get(k.id) ?? 0)}
          </td>
          <td className={`${CELL} text-slate-600 max-lg:col-span-3 lg:whitespace-nowrap`}>
            <span className={LABEL}>Expires</span>
            <Expiry expiresAt={k.expiresAt} now={now} />
          </td>
          <DateCell label="Created" iso={k.createdAt} className="max-lg:col-span-3 lg:max-xl:hidden" />
          <td className="py-2 pr-4 pl-2 text-right max-lg:col-span-2 max-lg:col-start-5 max-lg:row-start-1 max-lg:-my-2 max-lg:-mr-3 max-lg:justify-self-end max-lg:p-0">
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
