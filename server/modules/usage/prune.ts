import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { RETENTION_DAYS } from './range';

/** Deletes usage rollups past their retention (hour rows after 90 days, day rows after 731). */
export async function pruneUsage(db: Db, now = new Date()): Promise<number> {
  let deleted = 0;
  for (const table of ['usage_execution_rollups', 'usage_request_rollups']) {
    for (const [granularity, days] of Object.entries(RETENTION_DAYS)) {
      // Rows of the oldest day a query may still ask for stay (range.ts floors to the day).
      const before = new Date(now.getTime() - now.getTime() % 86_400_000 - days * 86_400_000).toISOString();
      const rows = await queryRows<{ n: number }>(
        db,
        sql`with gone as (delete from ${sql.identifier(table)} where granularity = ${granularity} and bucket < ${before}::timestamptz returning 1)
          select count(*)::int as n from gone`,
      );
      deleted += rows[0]?.n ?? 0;
    }
  }
  return deleted;
}
