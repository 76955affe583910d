import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import type { TestServer } from '../harness';
import type { Received } from './receiver';
import { eventually as pollUntil } from '../eventually';

// What the webhook tests do again and again: make a webhook, wait for its deliveries.

export interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: string | null;
  attempts: { attempt: number; at: string; statusCode: number | null; latencyMs: number; error: string | null; responseExcerpt: string | null }[];
}

export async function createWebhook(api: TestServer, key: string, body: Record<string, unknown>): Promise<CreatedWebhook> {
  const res = await api.request<CreatedWebhook>('POST', '/v1/webhooks', { key, body: { events: ['*'], ...body } });
  expectStatus(res, 201);
  return res.body;
}

export async function deliveries(api: TestServer, key: string, webhookId: string, query = ''): Promise<Delivery[]> {
  const res = await api.request<{ data: Delivery[] }>('GET', `/v1/webhooks/${webhookId}/deliveries${query}`, { key });
  expectStatus(res, 200);
  return res.body.data;
}

/** Polls until `done(value)` holds, for at most `timeoutMs` (test/eventually.ts, with the webhooks' longer default). */
export const eventually = <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, what = 'condition'): Promise<T> =>
  pollUntil(what, read, done, { timeoutMs, everyMs: 25 });

/**
 * Waits until nothing more can reach these webhooks without a new event: the relay has dispatched
 * every event (a delivery for them would exist by then), none of their deliveries is pending, and
 * no drain of theirs is under way. What their receivers got is final after it: the
 * barrier for "nothing (more) was sent", instead of sleeping long enough and hoping.
 */
export async function settled(api: TestServer, ...webhookIds: string[]): Promise<void> {
  const ids = sql.join(webhookIds.map((id) => sql`${id}`), sql`, `);
  await eventually(
    async () =>
      (
        await api.query<{ events: number; pending: number; drains: number }>(sql`select
          (select count(*)::int from events where dispatched_at is null) as events,
          (select count(*)::int from webhook_deliveries where webhook_id in (${ids}) and status = 'pending') as pending,
          (select count(*)::int from webhooks where id in (${ids}) and drain_token is not null) as drains`)
      )[0]!,
    (n) => n.events + n.pending + n.drains === 0,
    15_000,
    'webhooks settled',
  );
}

/** The received requests whose event is of one of `types`. */
export const ofType = (received: Received[], ...types: string[]) => received.filter((r) => types.includes(r.json.type));
