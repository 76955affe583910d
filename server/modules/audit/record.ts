import { sql, type SQL } from 'drizzle-orm';
import { queryRows, writeAll } from '../../../db/rows';
import { outboxEvent, type EventScope } from '../events/emit';
import type { AnyEventType } from '../vocabulary/event-types';
import type { Db } from '../../../db/client';
import type { Environment } from '../../../db/schema';
import type { RequestContext } from '../actor';
import { newId } from '../../platform/ids';
import type { AuditAction } from './actions';

// Writing the audit log (docs/audit.md): one row per change, inserted in the change's own
// transaction (or folded into its statement, `auditWrite`), so a change and its record commit or
// roll back together. The actor's label (a user's email, a key's prefix) is read by the insert
// itself: no round trip of its own.

/**
 * Who acted: the request's actor, or the service itself (a sweep, a schedule's occurrence). A
 * caller known only by its workspace and environment (a service called by another) is the system.
 */
export type AuditActor =
  | { kind: 'user'; userId: string; workspaceId?: string; environment?: Environment; request?: RequestContext }
  | { kind: 'key'; keyId: string; workspaceId: string; environment: Environment; request?: RequestContext }
  | { kind: 'system'; workspaceId?: string; environment?: Environment; request?: RequestContext }
  | { kind?: undefined; workspaceId: string; environment: Environment; request?: undefined };

export interface AuditEntry {
  /** `noun.verb` in the past tense (actions.ts). */
  action: AuditAction;
  target: { type: string; id: string | null };
  /** The workspace the record belongs to (default: the actor's). */
  workspaceId?: string;
  /** The target's environment (default: the actor's); null for a change of the whole workspace. */
  environment?: Environment | null;
  /** `{field: [before, after]}` of the API's views (`changesOf`): never a secret. */
  changes?: Record<string, [unknown, unknown]> | null;
}

const MAX_USER_AGENT = 512;

/** The insert of one audit record, as SQL (for a statement that writes several things: db/rows.ts `writeAll`). */
export function auditWrite(actor: AuditActor, entry: AuditEntry): SQL {
  const workspaceId = entry.workspaceId ?? actor.workspaceId;
  if (!workspaceId) throw new Error(`audit record ${entry.action} has no workspace`);
  const environment = entry.environment !== undefined ? entry.environment : (actor.environment ?? null);
  const kind = actor.kind ?? 'system';
  const [actorId, label] =
    actor.kind === 'user'
      ? [actor.userId, sql`(select email from users where id = ${actor.userId})`]
      : actor.kind === 'key'
        ? [actor.keyId, sql`(select prefix from api_keys where id = ${actor.keyId})`]
        : [null, sql`null`];
  const request = actor.request;
  const changes = entry.changes && Object.keys(entry.changes).length > 0 ? JSON.stringify(entry.changes) : null;
  return sql`insert into audit_events (id, workspace_id, environment, action, actor_type, actor_id, actor_label, target_type, target_id, ip, user_agent, request_id, changes)
    values (${newId('aud')}, ${workspaceId}, ${environment}, ${entry.action}, ${kind}, ${actorId}, ${label}, ${entry.target.type}, ${entry.target.id},
      ${request?.ip?.slice(0, 100) ?? null}, ${request?.userAgent?.slice(0, MAX_USER_AGENT) ?? null}, ${request?.requestId ?? null}, ${changes}::json)`;
}

/**
 * A change's outbox event (events/emit.ts) and its audit record, in one statement: where a change
 * emits an event, its record costs no statement of its own. Returns the event's id.
 */
export function emitAudited(tx: Db, scope: EventScope, type: AnyEventType, object: object, actor: AuditActor, entry: AuditEntry): Promise<string> {
  const event = outboxEvent(scope, type, object);
  return tx.execute(writeAll([event.insert, auditWrite(actor, entry)], [event.signal])).then(() => event.id);
}

/** Records a change, in `tx` (the change's transaction). */
export async function audit(tx: Db, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await tx.execute(auditWrite(actor, entry));
}

/**
 * The fields that differ between two views of a resource, as `{field: [before, after]}` (a
 * creation: `before` null; a deletion: `after` null). `fields`: the ones an audit shows — never a
 * secret. Values compare as JSON.
 */
export function changesOf<T extends Record<string, unknown>>(before: T | null, after: T | null, fields: readonly (keyof T & string)[]): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const f of fields) {
    const b = before ? (before[f] ?? null) : null;
    const a = after ? (after[f] ?? null) : null;
    if (JSON.stringify(b) !== JSON.stringify(a)) out[f] = [b, a];
  }
  return out;
}

/**
 * Records a change of a user's own account (a sign-in, a new password) in every workspace they
 * belong to, as a change of the whole workspace (environment null): each team sees what happens
 * to its members' accounts.
 */
export async function auditAccount(tx: Db, actor: AuditActor, userId: string, entry: Omit<AuditEntry, 'workspaceId' | 'environment'>): Promise<void> {
  const rows = await queryRows<{ workspace_id: string }>(tx, sql`select workspace_id from workspace_members where user_id = ${userId}`);
  await Promise.all(rows.map((r) => tx.execute(auditWrite(actor, { ...entry, workspaceId: r.workspace_id, environment: null }))));
}
