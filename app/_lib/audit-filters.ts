import { AUDIT_ACTIONS } from '@/server/modules/audit/actions';
import type { AuditAction, AuditFilters } from './types';

// The Audit log page's filters (docs/audit.md) as the page keeps them — in its address, so a
// filtered log can be linked to — and as the list takes them. Dates are whole UTC days, both
// ends included: "to 2026-11-27" asks the API for records before 2026-11-28.

export { AUDIT_ACTIONS };

export interface AuditSearch {
  action: AuditAction | null;
  actorId: string;
  targetId: string;
  /** YYYY-MM-DD (UTC), or ''. */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditSearch = { action: null, actorId: '', targetId: '', from: '', to: '' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const validDay = (v: string | undefined) => (v && DAY.test(v) && Number.isFinite(Date.parse(`${v}T00:00:00Z`)) ? v : '');
const id = (v: string | undefined) => (v ?? '').trim().slice(0, 100);

/** The filters in an address's query (`?action=key.created&actorId=usr_…&from=2026-11-01`); anything unknown is dropped. */
export function parseAuditSearch(search: Record<string, string | string[] | undefined>): AuditSearch {
  const one = (k: string) => (typeof search[k] === 'string' ? (search[k] as string) : undefined);
  return {
    action: AUDIT_ACTIONS.find((a) => a === one('action')) ?? null,
    actorId: id(one('actorId')),
    targetId: id(one('targetId')),
    from: validDay(one('from')),
    to: validDay(one('to')),
  };
}

export function auditSearchQuery(s: AuditSearch): string {
  const q = new URLSearchParams();
  if (s.action) q.set('action', s.action);
  if (s.actorId) q.set('actorId', s.actorId);
  if (s.targetId) q.set('targetId', s.targetId);
  if (s.from) q.set('from', s.from);
  if (s.to) q.set('to', s.to);
  const text = q.toString();
  return text ? `?${text}` : '';
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** What the list is asked for. */
export function auditFilters(s: AuditSearch): AuditFilters {
  return {
    ...(s.action ? { action: s.action } : {}),
    ...(s.actorId ? { actorId: s.actorId } : {}),
    ...(s.targetId ? { targetId: s.targetId } : {}),
    ...(s.from ? { start: s.from } : {}),
    ...(s.to ? { end: nextDay(s.to) } : {}),
  };
}

export const hasFilters = (s: AuditSearch) => Boolean(s.action || s.actorId || s.targetId || s.from || s.to);
