import { formatDate, formatDay, formatRelative } from '@/app/_lib/format';
import type { KeyItem } from '@/app/_lib/types';
import { Badge, Button } from '../ui';

const COLUMNS = ['Name', 'Key', 'Environment', 'Scopes', 'Last used', 'Expires', 'Created', ''];

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

export function KeysTable({ keys, now, onRevoke }: { keys: KeyItem[]; now: number; onRevoke: (key: KeyItem) => void }) {
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="keys-table">
        <thead className="bg-slate-50">
          <tr>
            {COLUMNS.map((c, i) => (
              <th key={i} scope="col" className="px-4 py-3 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase">
                {c || <span className="sr-only">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {keys.map((k) => (
            <tr key={k.id} data-testid="key-row" data-key-id={k.id} className="align-top hover:bg-slate-50/60">
              <td className="min-w-40 px-4 py-3 font-medium break-words text-slate-900">{k.name}</td>
              <td className="px-4 py-3">
                <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs whitespace-nowrap text-slate-700" data-testid="key-prefix">
                  {k.prefix}…
                </code>
              </td>
              <td className="px-4 py-3">
                <Badge tone={k.environment === 'test' ? 'amber' : 'green'}>{k.environment}</Badge>
              </td>
              <td className="px-4 py-3">
                <div className="flex max-w-sm min-w-56 flex-wrap gap-1">
                  {k.scopes.length === 0 && <span className="text-slate-400">None</span>}
                  {k.scopes.map((s) => (
                    <Badge key={s} className="font-mono">
                      {s}
                    </Badge>
                  ))}
                </div>
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-slate-600" title={k.lastUsed ? formatDate(k.lastUsed) : undefined}>
                {k.lastUsed ? formatRelative(k.lastUsed, now) : <span className="text-slate-500">Never</span>}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-slate-600">
                <Expiry expiresAt={k.expiresAt} now={now} />
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-slate-600" title={formatDate(k.createdAt)}>
                {formatDay(k.createdAt)}
              </td>
              <td className="px-4 py-2 text-right">
                <Button variant="dangerGhost" onClick={() => onRevoke(k)} aria-label={`Revoke ${k.name}`}>
                  Revoke
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
