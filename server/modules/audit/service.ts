import { and, asc, desc, eq, gt, gte, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { Environment } from '../../../db/schema';
import { encodeTime } from 'ulid';
import type { Db } from '../../../db/client';
import { auditEvents } from '../../../db/schema';
import { ApiError } from '../../platform/errors';
import { paginate, planPage, type Page } from '../../platform/pagination';
import type { AuditAction } from './actions';
import type { AuditEventView, ListAuditEventsInput } from './schemas';

// Reading the audit log (docs/audit.md): a workspace's records in one environment, newest first, by keyset on the
// time-ordered id; every filter is an indexed scan ((workspace_id, action | actor_id | target_id, id)),
// and a time range is a range of ids.

type Row = typeof auditEvents.$inferSelect;

export function auditEventView(r: Row): AuditEventView {
  const actor: AuditEventView['actor'] =
    r.actorType === 'user' ? { type: 'user', id: r.actorId ?? '', email: r.actorLabel } : r.actorType === 'key' ? { type: 'key', id: r.actorId ?? '', prefix: r.actorLabel } : { type: 'system' };
  return {
    id: r.id,
    action: r.action as AuditAction,
    actor,
    target: { type: r.targetType, id: r.targetId },
    environment: r.environment as AuditEventView['environment'],
    ip: r.ip,
    userAgent: r.userAgent,
    requestId: r.requestId,
    changes: r.changes ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}

/** The smallest id made at `ms` (ULID: the time, then 16 characters of randomness). */
const idAt = (ms: number) => `aud_${encodeTime(ms, 10)}0000000000000000`;

function instant(value: string | undefined, param: 'start' | 'end'): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms) || ms < 0 || ms > 281474976710655) throw new ApiError('invalid_parameter', `Invalid '${param}': not an instant`, { param });
  return ms;
}

/**
 * The records of `scope`'s workspace in its environment, and those of the whole workspace
 * (environment null: members, account, sign-ins), as every list is kept to one environment.
 */
export async function listAuditEvents(db: Db, scope: { workspaceId: string; environment: Environment }, input: ListAuditEventsInput): Promise<Page<AuditEventView>> {
  const plan = planPage('aud', input);
  const start = instant(input.start, 'start');
  const end = instant(input.end, 'end');
  if (start !== undefined && end !== undefined && end <= start) throw new ApiError('invalid_parameter', "Invalid 'end': it must be after 'start'", { param: 'end' });
  const where: (SQL | undefined)[] = [
    eq(auditEvents.workspaceId, scope.workspaceId),
    or(eq(auditEvents.environment, scope.environment), isNull(auditEvents.environment)),
    input.action ? eq(auditEvents.action, input.action) : undefined,
    input.actorId ? eq(auditEvents.actorId, input.actorId) : undefined,
    input.targetId ? eq(auditEvents.targetId, input.targetId) : undefined,
    start !== undefined ? gte(auditEvents.id, idAt(start)) : undefined,
    end !== undefined ? lt(auditEvents.id, idAt(end)) : undefined,
  ];
  const page = await paginate(plan, {
    fetch: (direction, cursor, take) =>
      db
        .select()
        .from(auditEvents)
        .where(and(...where, cursor === undefined ? undefined : direction === 'older' ? lt(auditEvents.id, cursor) : gt(auditEvents.id, cursor)))
        .orderBy(direction === 'older' ? desc(auditEvents.id) : asc(auditEvents.id))
        .limit(take),
    exists: async (direction, id) =>
      (
        await db
          .select({ id: auditEvents.id })
          .from(auditEvents)
          .where(and(...where, direction === 'older' ? lt(auditEvents.id, id) : gt(auditEvents.id, id)))
          .limit(1)
      ).length > 0,
  });
  return { ...page, data: page.data.map(auditEventView) };
}
