'use client';

import { actorLabel } from '@/app/_lib/audit-csv';
import { formatDateTime } from '@/app/_lib/dates';
import type { AuditEvent } from '@/app/_lib/types';
import { DisclosureButton, ROW_TOGGLE } from '../disclosure';
import { Badge } from '../ui';
import { When } from '../when';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

/** A value of `changes` in a cell: text as it is, anything else as JSON, null as a dash. */
const shown = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

function Changes({ changes }: { changes: NonNullable<AuditEvent['changes']> }) {
  const fields = Object.entries(changes);
  if (fields.length === 0) return <p className="text-xs text-slate-500">No field changed.</p>;
  return (
    <div className="overflow-x-auto rounded-md ring-1 ring-slate-200">
      <table className="w-full text-left text-xs" data-testid="audit-changes">
        <thead className="bg-slate-50 text-slate-500">
          <tr>
            <th className="px-3 py-1.5 font-medium">Field</th>
            <th className="px-3 py-1.5 font-medium">Before</th>
            <th className="px-3 py-1.5 font-medium">After</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {fields.map(([field, [before, after]]) => (
            <tr key={field} className="align-top">
              <td className="px-3 py-1.5 font-mono text-slate-700">{field}</td>
              <td className="px-3 py-1.5 font-mono break-all text-slate-500">{shown(before)}</td>
              <td className="px-3 py-1.5 font-mono break-all text-slate-900">{shown(after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="mt-0.5 font-mono text-xs break-all text-slate-800">{children}</dd>
    </div>
  );
}

const FILTER_LINK = 'ml-2 font-sans text-indigo-600 hover:text-indigo-500';

/** One record: what was done, by whom, to what, when; opened, where from and what changed. */
export function AuditItem({
  event: e,
  now,
  open,
  onToggle,
  onFilter,
}: {
  event: AuditEvent;
  now: number;
  open: boolean;
  onToggle: () => void;
  onFilter: (filter: { actorId: string } | { targetId: string }) => void;
}) {
  const panelId = `audit-${e.id}`;
  const actorId = e.actor.type === 'system' ? null : e.actor.id;
  return (
    <li data-testid="audit-row" data-audit-id={e.id} data-action={e.action}>
      <DisclosureButton
        open={open}
        controls={panelId}
        onToggle={onToggle}
        className={ROW_TOGGLE}
        testId="audit-toggle"
      >
        <span className="min-w-0 flex-1">
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <code className="font-mono text-sm font-medium text-slate-900" data-testid="audit-action">
              {e.action}
            </code>
            {e.environment && <Badge tone={e.environment === 'test' ? 'amber' : 'slate'}>{ENVIRONMENT_WORDS[e.environment]}</Badge>}
          </span>
          <span className="mt-1 block truncate text-xs text-slate-600">
            <span data-testid="audit-actor">{actorLabel(e)}</span>
            {e.target.id && (
              <>
                {' → '}
                <code className="font-mono text-slate-500">{e.target.id}</code>
              </>
            )}
          </span>
        </span>
        <When iso={e.createdAt} now={now} className="shrink-0 text-xs whitespace-nowrap text-slate-500" />
      </DisclosureButton>
      {open && (
        <div id={panelId} className="space-y-4 px-4 pb-4 sm:pr-5 sm:pl-11" data-testid="audit-details">
          <dl className="grid gap-3 sm:grid-cols-2">
            <Detail label="Actor">
              {e.actor.type}
              {actorId && (
                <>
                  {' '}
                  {actorId}
                  <button type="button" className={FILTER_LINK} onClick={() => onFilter({ actorId })} data-testid="audit-filter-actor">
                    Only this actor
                  </button>
                </>
              )}
            </Detail>
            <Detail label="Target">
              {e.target.type} {e.target.id ?? ''}
              {e.target.id && (
                <button type="button" className={FILTER_LINK} onClick={() => onFilter({ targetId: e.target.id! })} data-testid="audit-filter-target">
                  Only this target
                </button>
              )}
            </Detail>
            <Detail label="When">{formatDateTime(e.createdAt, { seconds: true })}</Detail>
            <Detail label="IP address">{e.ip ?? '—'}</Detail>
            <Detail label="User agent">{e.userAgent ?? '—'}</Detail>
            <Detail label="Request">{e.requestId ?? '—'}</Detail>
            <Detail label="Record">{e.id}</Detail>
          </dl>
          {e.changes && (
            <div className="space-y-1.5">
              <p className="text-xs font-medium text-slate-500">Changes</p>
              <Changes changes={e.changes} />
            </div>
          )}
        </div>
      )}
    </li>
  );
}
