import { and, eq, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { events } from '../../../db/schema';
import { notFound } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { keysetList, type ListRow, type ListScope } from '../../platform/keyset';
import type { Page, PageParams } from '../../platform/pagination';
import type { eventSchema } from './schemas';
import type { AnyEventType } from '../vocabulary/event-types';

// Events as a program reads them back to reconcile (docs/webhooks.md, "The contract"): the last
// 30 days, newest first.

export type EventView = z.infer<typeof eventSchema>;

const columns = { id: events.id, type: events.type, environment: events.environment, object: events.object, createdAt: events.createdAt };

// Events of the workspace and environment; test events sent to one webhook are not listed.
const eventList = keysetList({ name: 'events', prefix: 'evt', table: events, columns, where: isNull(events.webhookId), filters: { type: events.type } });

/** The event as the API shows it and a webhook receives it. */
export function eventView(row: ListRow<typeof columns>): EventView {
  return { id: row.id, type: row.type as AnyEventType, createdAt: row.createdAt.toISOString(), environment: row.environment, data: { object: row.object } };
}

export async function listEvents(db: Db, scope: ListScope, input: PageParams & { type?: AnyEventType }): Promise<Page<EventView>> {
  const page = await eventList.page(db, scope, input);
  return { ...page, data: page.data.map(eventView) };
}

export async function getEvent(db: Db, scope: ListScope, id: string): Promise<EventView> {
  const [row] = isId('evt', id)
    ? await db
        .select(columns)
        .from(events)
        .where(and(eq(events.id, id), eq(events.workspaceId, scope.workspaceId), eq(events.environment, scope.environment)))
    : [];
  if (!row) throw notFound('event', id);
  return eventView(row);
}
