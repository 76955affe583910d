import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { writeAll } from '../../../db/rows';
import type { Environment } from '../../../db/schema';
import { newId } from '../../platform/ids';
import { CHANNELS, notifyCall } from '../../platform/notify';
import type { AnyEventType } from './types';

// The outbox (docs/webhooks.md): an event is written by the transaction that makes the change, so
// it exists exactly when the change does (a rollback takes it away, a crash after the commit cannot
// lose it). The relay (server/modules/webhooks/relay.ts) turns it into deliveries; the NOTIFY, delivered at
// commit, wakes it. One statement, so it pipelines with the change's other statements.

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
  return {
    id,
    insert: sql`insert into events (id, workspace_id, environment, type, object, webhook_id)
        values (${id}, ${scope.workspaceId}, ${scope.environment}, ${type}, ${JSON.stringify(object)}::json, ${opts.webhookId ?? null})`,
    signal: notifyCall(CHANNELS.outbox, null),
  };
}
