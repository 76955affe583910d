import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { writeAll } from '../../../db/rows';
import type { Environment } from '../../../db/schema';
import { newId } from '../../platform/ids';
import { CHANNELS, notifyCall } from '../../platform/notify';
import type { AnyEventType } from '../vocabulary/event-types';

// The outbox (docs/webhooks.md): an event is written by the transaction that makes the change, so
// it exists exactly when the change does (a rollback takes it away, a crash after the commit cannot
// lose it). The relay (server/modules/webhooks/relay.ts) turns it into deliveries; the NOTIFY, delivered at
// commit, wakes it. One statement, so it pipelines with the change's other statements. Where
// there is no webhook to deliver to, the event is written dispatched and nothing is woken.

export interface EventScope {
  workspaceId: string;
  environment: Environment;
}

/**
 * Appends an event to the outbox inside `tx` (a transaction, or the database for a one-statement
 * change). `object` is the resource exactly as the REST API shows it. Returns the event id.
 */
export function emit(tx: Db, scope: EventScope, type: AnyEventType, object: object, opts: { webhookId?: string } = {}): Promise<string> {
  const event = outboxEvent(scope, type, object, opts);
  return tx.execute(writeAll([event.insert], [event.signal])).then(() => event.id);
}

/**
 * An outbox event as parts of a larger statement (db/rows.ts `writeAll`): its insert and its
 * signal, for a change that writes it in the same statement as its other rows.
 */
export function outboxEvent(scope: EventScope, type: AnyEventType, object: object, opts: { webhookId?: string } = {}): { id: string; insert: SQL; signal: SQL } {
  const id = newId('evt');
  // Only a workspace and environment with a webhook need the relay: a webhook gets the events
  // that happen after it was created, so with none the event is dispatched as it is written
  // (no relay run, no NOTIFY: docs/webhooks.md, "The outbox"). A test event is for its webhook.
  const relayed = opts.webhookId
    ? sql`true`
    : sql`exists (select 1 from webhooks w where w.workspace_id = ${scope.workspaceId} and w.environment = ${scope.environment})`;
  return {
    id,
    insert: sql`insert into events (id, workspace_id, environment, type, object, webhook_id, dispatched_at)
        values (${id}, ${scope.workspaceId}, ${scope.environment}, ${type}, ${JSON.stringify(object)}::json, ${opts.webhookId ?? null},
          case when ${relayed} then null else now() end)`,
    signal: sql`case when ${relayed} then ${notifyCall(CHANNELS.outbox, null)} end`,
  };
}
