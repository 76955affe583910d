'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import { auditCsv, auditFileName, collectAuditEvents, MAX_EXPORT } from '@/app/_lib/audit-csv';
import { AUDIT_ACTIONS, auditFilters, auditSearchQuery, hasFilters, NO_FILTERS, type AuditSearch } from '@/app/_lib/audit-filters';
import { downloadCsv } from '@/app/_lib/csv';
import { errorMessage } from '@/app/_lib/errors';
import { formatCount } from '@/app/_lib/format';
import type { AuditAction } from '@/app/_lib/types';
import { TableSkeleton } from '../agents/agents-table';
import { useOpenSet } from '../disclosure';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { EmptyState, EventIcon, ListFooter, LoadError, PageSkeleton } from '../states';
import { RoleRefused } from '../team/role-refused';
import { useCan } from '../team/use-can';
import { Alert, Button, Card, Spinner } from '../ui';
import { AuditItem } from './audit-item';

const PAGE_SIZE = 25;

const CONTROL =
  'block w-full rounded-md border-0 bg-white py-2 px-3 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

/** A filter's label and control: a row of its own on a phone, or half of one (`half`: the dates). */
function Filter({ id, label, half = false, children }: { id: string; label: string; half?: boolean; children: React.ReactNode }) {
  return (
    <div className={`min-w-0 space-y-1 sm:w-48 ${half ? 'max-sm:flex-1' : 'max-sm:basis-full'}`}>
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      {children}
    </div>
  );
}

// The Audit log (docs/audit.md): owners and admins read who changed what, in this environment
// and in the workspace, with the API's filters, and export what they select as CSV.
export function AuditView({ initial }: { initial: AuditSearch }) {
  const can = useCan();
  if (can.role === undefined) return <PageSkeleton label="Loading the audit log" testId="audit-loading" />;
  if (!can.administer) return <RoleRefused role={can.role} what="the audit log" who="it is for owners and admins" testId="audit-refused" />;
  return <AuditLog initial={initial} />;
}

function AuditLog({ initial }: { initial: AuditSearch }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const { environment } = useEnvironment();
  const [search, setSearch] = useState<AuditSearch>(initial);
  const [draft, setDraft] = useState<AuditSearch>(initial);
  const { open, toggle } = useOpenSet();
  const [exporting, setExporting] = useState<number | null>(null);
  const [exportNote, setExportNote] = useState<{ tone: 'red' | 'amber'; text: string } | null>(null);
  const abort = useRef<AbortController | null>(null);

  const filters = auditFilters(search);
  const list = useInfiniteQuery({
    queryKey: [...trpc.audit.list.pathKey(), 'pages', filters],
    queryFn: ({ pageParam, signal }) => client.audit.list.query({ limit: PAGE_SIZE, ...filters, ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const events = list.data?.pages.flatMap((p) => p.data) ?? [];

  function apply(next: AuditSearch) {
    setSearch(next);
    setDraft(next);
    setExportNote(null);
    router.replace(`/dashboard/audit${auditSearchQuery(next)}`, { scroll: false });
  }
  const onSubmit = (e: FormEvent) => (e.preventDefault(), apply({ ...draft, actorId: draft.actorId.trim(), targetId: draft.targetId.trim() }));

  async function exportCsv() {
    abort.current = new AbortController();
    setExporting(0);
    setExportNote(null);
    try {
      const { events: all, truncated } = await collectAuditEvents((input, signal) => client.audit.list.query(input, { signal }), filters, setExporting, abort.current.signal);
      downloadCsv(auditFileName(environment), auditCsv(all));
      if (truncated) setExportNote({ tone: 'amber', text: `The file holds the newest ${formatCount(MAX_EXPORT)} records: choose dates to export the rest.` });
    } catch (error) {
      if (!abort.current.signal.aborted) setExportNote({ tone: 'red', text: `The export failed: ${errorMessage(error)}` });
    } finally {
      setExporting(null);
    }
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Audit log</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Every change made in this workspace — through the dashboard, the API or the admin CLI — and every sign-in, newest first: {environment}{' '}
            mode’s and the workspace’s own (members, account). Kept 365 days; the same list is at{' '}
            <code className="font-mono text-xs">GET /v1/audit-events</code>.
          </p>
        </div>
        <div className="flex gap-2">
          {exporting !== null && (
            <Button variant="secondary" onClick={() => abort.current?.abort()} data-testid="audit-export-cancel">
              Cancel
            </Button>
          )}
          <Button variant="secondary" onClick={() => void exportCsv()} disabled={exporting !== null || events.length === 0} data-testid="audit-export">
            {exporting !== null && <Spinner />}
            {exporting !== null ? `Exporting… ${formatCount(exporting)}` : 'Export CSV'}
          </Button>
        </div>
      </div>

      <form className="flex flex-wrap items-end gap-3" aria-label="Filters" onSubmit={onSubmit}>
        <Filter id="audit-action" label="Action">
          <select
            id="audit-action"
            className={`${CONTROL} pr-8`}
            value={draft.action ?? ''}
            onChange={(e) => apply({ ...draft, action: (e.target.value || null) as AuditAction | null })}
            data-testid="audit-filter-action"
          >
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </Filter>
        <Filter id="audit-actor" label="Actor (usr_… or key_…)">
          <input id="audit-actor" className={CONTROL} value={draft.actorId} maxLength={100} onChange={(e) => setDraft({ ...draft, actorId: e.target.value })} data-testid="audit-actor-input" />
        </Filter>
        <Filter id="audit-target" label="Target id">
          <input id="audit-target" className={CONTROL} value={draft.targetId} maxLength={100} onChange={(e) => setDraft({ ...draft, targetId: e.target.value })} data-testid="audit-target-input" />
        </Filter>
        <Filter id="audit-from" label="From (UTC)" half>
          <input id="audit-from" type="date" className={CONTROL} value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} data-testid="audit-from" />
        </Filter>
        <Filter id="audit-to" label="To (UTC, included)" half>
          <input id="audit-to" type="date" className={CONTROL} value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} data-testid="audit-to" />
        </Filter>
        <div className="flex gap-2">
          <Button type="submit" variant="secondary" data-testid="audit-apply">
            Apply
          </Button>
          {hasFilters(search) && (
            <Button variant="secondary" onClick={() => apply(NO_FILTERS)} data-testid="audit-clear">
              Clear
            </Button>
          )}
        </div>
      </form>

      {exportNote && (
        <Alert tone={exportNote.tone} data-testid="audit-export-note">
          {exportNote.text}
        </Alert>
      )}

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading audit events" testId="audit-list-loading" />
        ) : list.isError && events.length === 0 ? (
          <LoadError what="The audit log" error={list.error} onRetry={() => void list.refetch()} testId="audit-error" />
        ) : events.length === 0 ? (
          <EmptyState
            icon={<EventIcon />}
            title={hasFilters(search) ? 'No records match' : 'No records yet'}
            action={hasFilters(search) ? <Button variant="secondary" onClick={() => apply(NO_FILTERS)}>Clear filters</Button> : null}
            testId="audit-empty"
          >
            {hasFilters(search) ? 'Nothing in the log matches these filters.' : 'Changes to keys, agents, webhooks, members and the rest appear here as they are made.'}
          </EmptyState>
        ) : (
          <>
            <ul className="divide-y divide-slate-100" data-testid="audit-list">
              {events.map((e) => (
                <AuditItem key={e.id} event={e} now={list.dataUpdatedAt} open={open.has(e.id)} onToggle={() => toggle(e.id)} onFilter={(f) => apply({ ...search, ...f })} />
              ))}
            </ul>
            <ListFooter list={list} />
          </>
        )}
      </Card>
    </div>
  );
}
