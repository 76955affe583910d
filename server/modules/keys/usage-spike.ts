import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import type { Environment } from '../../../db/schema';
import { emit } from '../events/emit';
import { log } from '../../platform/log';
import { repeat } from '../../platform/repeat';
import { keyViewById } from './service';

// `key.usage_spike` (docs/budgets.md, "Alerts"): the reference asks users to monitor key usage
// for unusual patterns, so the service does it for them. A key whose requests in an hour (the
// hour rows of usage_request_rollups: this hour as it fills, and the last one) pass both 10× its
// average hourly requests over the 7 days before that hour and SPIKE_FLOOR sends the event, at
// most once per key per day (UTC): the day's key_usage_alerts row is claimed in the transaction
// that writes the event.

/** An hour needs at least this many requests to be a spike, whatever the key's average. */
export const SPIKE_FLOOR = 1_000;
/** And this many times the key's average hour of the previous 7 days. */
export const SPIKE_FACTOR = 10;

interface Spike {
  workspace_id: string;
  environment: Environment;
  key_id: string;
  bucket: Date | string;
  requests: number;
  average: number;
}

/** Finds the keys spiking now and sends each one's event (once a day). Returns the keys alerted. */
export async function sweepUsageSpikes(db: Db, now: Date = new Date()): Promise<string[]> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const spikes = await queryRows<Spike>(
    db,
    sql`with cur as (
      select workspace_id, environment, key_id, bucket,
        succeeded + client_errors + unauthorized + forbidden + rate_limited + server_errors as requests
      from usage_request_rollups
      where granularity = 'hour' and bucket >= date_trunc('hour', ${at}) - interval '1 hour' and bucket <= ${at}
    )
    select c.workspace_id, c.environment, c.key_id, c.bucket, c.requests::int as requests, coalesce(h.total, 0)::float8 / 168 as average
    from cur c
    left join lateral (
      select sum(succeeded + client_errors + unauthorized + forbidden + rate_limited + server_errors) as total
      from usage_request_rollups p
      where p.workspace_id = c.workspace_id and p.environment = c.environment and p.granularity = 'hour' and p.key_id = c.key_id
        and p.bucket >= c.bucket - interval '7 days' and p.bucket < c.bucket
    ) h on true
    where c.requests >= ${SPIKE_FLOOR} and c.requests > ${SPIKE_FACTOR} * coalesce(h.total, 0)::float8 / 168
      and not exists (select 1 from key_usage_alerts a where a.key_id = c.key_id and a.day = (${at} at time zone 'UTC')::date)`,
  );
  const sent: string[] = [];
  for (const s of spikes) {
    await transaction(db, async (tx) => {
      const claimed = await queryRows(
        tx,
        sql`insert into key_usage_alerts (key_id, day) select ${s.key_id}, (${at} at time zone 'UTC')::date
            where exists (select 1 from api_keys where id = ${s.key_id}) on conflict do nothing returning 1`,
      );
      if (claimed.length === 0) return;
      const key = await keyViewById(tx, s.key_id);
      if (!key) return;
      const hour = new Date(s.bucket).toISOString();
      await emit(tx, { workspaceId: s.workspace_id, environment: s.environment }, 'key.usage_spike', {
        ...key,
        usage: { hour, requests: Number(s.requests), averageHourlyRequests: Math.round(Number(s.average) * 100) / 100 },
      });
      sent.push(s.key_id);
    });
  }
  return sent;
}

/** Looks every minute, on each worker (the claim keeps it once a day per key). */
export function startUsageSpikes(db: Db): () => Promise<void> {
  return repeat(
    async () => {
      try {
        await sweepUsageSpikes(db);
      } catch (err) {
        log.error({ err }, 'key usage spike sweep failed');
      }
    },
    () => 60_000,
  );
}
