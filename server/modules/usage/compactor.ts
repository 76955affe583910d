import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { log } from '../../platform/log';
import { repeat } from '../../platform/repeat';
import { bucketSql } from './histogram';
import { pricedFrom, type PriceTable } from '../../platform/prices';
import { addToRollup } from './rollups';

// Compaction (docs/analytics.md): moves execution usage records into their hour and day
// rollups. One statement takes a batch of records (FOR UPDATE SKIP LOCKED), deletes them, and
// adds them to the rollups (counters add, histograms merge) in the same transaction: a record
// is counted once or, if the transaction fails, stays to be counted later. One compactor runs at
// a time across processes (an advisory lock; another simply skips its turn), so two never wait
// on each other's rollup rows.

const COMPACTION_LOCK = 7_311_402_917;
export const COMPACTION_BATCH = 10_000;

const KEY = sql.raw('granularity, bucket, workspace_id, environment, agent_id, agent_version, model, status');

/** Compacts one batch: how many records it moved (null when another process was compacting). */
export async function compactOnce(db: Db, opts: { batch?: number; prices?: PriceTable } = {}): Promise<number | null> {
  const batch = opts.batch ?? COMPACTION_BATCH;
  const priced = pricedFrom(sql`expanded`, opts.prices);
  return transaction(db, async (tx) => {
    const [lock] = await queryRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${COMPACTION_LOCK}) as locked`);
    if (!lock?.locked) return null;
    const [result] = await queryRows<{ moved: number }>(
      tx,
      sql`with moved as (
        delete from usage_execution_records where execution_id in (
          select execution_id from usage_execution_records order by completed_at limit ${batch} for update skip locked)
        returning *
      ), expanded as (
        -- Each record counts in its hour and in its day. A workspace deleted meanwhile drops out.
        select g.granularity, date_trunc(g.granularity, m.completed_at, 'UTC') as bucket, m.*
        from moved m join workspaces w on w.id = m.workspace_id cross join (values ('hour'), ('day')) as g(granularity)
      ), priced as (
        select r.*, ${priced.cost} as cost, ${bucketSql(sql`r.duration_ms`)} as hk from ${priced.from}
      ), hist as (
        select ${KEY}, string_agg(hk || ':' || n, ',' order by hk) as h from (
          select ${KEY}, hk, count(*) as n from priced where duration_ms is not null group by ${KEY}, hk
        ) k group by ${KEY}
      ), agg as (
        select ${KEY}, count(*)::int as executions, count(duration_ms)::int as started,
          sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens, sum(tool_calls)::bigint as tool_calls,
          coalesce(sum(cost), 0) as cost_usd, (count(*) - count(cost))::int as unpriced
        from priced group by ${KEY}
      ), ins as (
        insert into usage_execution_rollups as u (${KEY}, executions, started, input_tokens, output_tokens, tool_calls, cost_usd, unpriced, duration_hist)
        select a.*, coalesce(h.h, '') from agg a left join hist h using (${KEY})
        order by workspace_id, environment, granularity, bucket, agent_id, agent_version, model, status
        on conflict (workspace_id, environment, granularity, bucket, agent_id, agent_version, model, status) do update set
          ${addToRollup(['executions', 'started', 'input_tokens', 'output_tokens', 'tool_calls', 'cost_usd', 'unpriced'])}
        returning 1
      )
      select (select count(*) from moved)::int as moved, (select count(*) from ins)::int as upserted`,
    );
    return result?.moved ?? 0;
  });
}

/** Compacts until no full batch is left (or another process holds the turn). */
export async function compactAll(db: Db, opts: { batch?: number; prices?: PriceTable } = {}): Promise<number> {
  const batch = opts.batch ?? COMPACTION_BATCH;
  let total = 0;
  for (;;) {
    const moved = await compactOnce(db, { ...opts, batch });
    if (moved === null) return total;
    total += moved;
    if (moved < batch) return total;
  }
}

/** Records deleted by compaction before the table is vacuumed (see startCompactor). */
const VACUUM_AFTER = 20_000;

/**
 * Compacts every `intervalMs` while records wait (one cheap query when none do); a backlog is
 * drained batch after batch. Every VACUUM_AFTER records moved, the records table is vacuumed:
 * it is a queue (every row inserted, then deleted), and neither PGlite nor a PostgreSQL with
 * autovacuum off ever cleans it otherwise — a query's index scan over a million dead entries took
 * 17 ms for no row. Returns the function that stops it after the batch in flight.
 */
export function startCompactor(db: Db, intervalMs = 2_000): () => Promise<void> {
  let sinceVacuum = 0;
  return repeat(async () => {
    try {
      const [waiting] = await queryRows<{ any: boolean }>(db, sql`select exists (select 1 from usage_execution_records) as any`);
      if (waiting?.any) sinceVacuum += await compactAll(db);
      if (sinceVacuum >= VACUUM_AFTER) {
        sinceVacuum = 0;
        await db.execute(sql`vacuum usage_execution_records`);
      }
    } catch (err) {
      log.error({ err }, 'usage compaction failed; the records stay and are compacted on a later turn');
    }
  }, () => intervalMs);
}
