import { toCsv, type Column } from './csv';
import type { DashboardEnvironment } from './environment';
import type { AuditEvent, AuditFilters } from './types';

// The Audit log page's CSV export (docs/audit.md): the records the filters select, newest first,
// read page by page from the same list the page shows (`GET /v1/audit-events`), one row each.
// `changes` is its JSON, as the API answers it. At most MAX_EXPORT rows: a larger log is
// exported a date range at a time (the file says when it was cut short).

/** The most records one export holds (100 pages of 100). */
export const MAX_EXPORT = 10_000;
const PAGE = 100;

const COLUMNS: Column<AuditEvent>[] = [
  ['id', (e) => e.id],
  ['created_at', (e) => e.createdAt],
  ['action', (e) => e.action],
  ['actor_type', (e) => e.actor.type],
  ['actor_id', (e) => (e.actor.type === 'system' ? null : e.actor.id)],
  ['actor', (e) => actorLabel(e)],
  ['target_type', (e) => e.target.type],
  ['target_id', (e) => e.target.id],
  ['environment', (e) => e.environment],
  ['ip', (e) => e.ip],
  ['user_agent', (e) => e.userAgent],
  ['request_id', (e) => e.requestId],
  ['changes', (e) => (e.changes ? JSON.stringify(e.changes) : null)],
];

/** Who made a change, in words: the user's email, the key's prefix, or "system". */
export function actorLabel(e: Pick<AuditEvent, 'actor'>): string {
  const a = e.actor;
  return a.type === 'user' ? (a.email ?? a.id) : a.type === 'key' ? (a.prefix ?? a.id) : 'system';
}

export function auditCsv(events: readonly AuditEvent[]): string {
  return toCsv(COLUMNS, events);
}

type Page = { data: AuditEvent[]; hasMore: boolean; nextCursor?: string };

/**
 * Reads every record the filters select (at most MAX_EXPORT), page after page: `fetchPage` is the
 * list's query. `onProgress` hears the count so far; an aborted `signal` stops between pages.
 */
export async function collectAuditEvents(
  fetchPage: (input: AuditFilters & { limit: number; after?: string }, signal?: AbortSignal) => Promise<Page>,
  filters: AuditFilters,
  onProgress?: (count: number) => void,
  signal?: AbortSignal,
): Promise<{ events: AuditEvent[]; truncated: boolean }> {
  const events: AuditEvent[] = [];
  let after: string | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const page = await fetchPage({ ...filters, limit: Math.min(PAGE, MAX_EXPORT - events.length), ...(after ? { after } : {}) }, signal);
    events.push(...page.data);
    onProgress?.(events.length);
    if (!page.hasMore || !page.nextCursor) return { events, truncated: false };
    if (events.length >= MAX_EXPORT) return { events, truncated: true };
    after = page.nextCursor;
  }
}

/** audit-log-live-2026-11-27.csv: the environment and the day it was exported. */
export function auditFileName(environment: DashboardEnvironment, now = new Date()): string {
  return `audit-log-${environment}-${now.toISOString().slice(0, 10)}.csv`;
}
