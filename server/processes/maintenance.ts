import { and, isNotNull, lt, or, sql } from 'drizzle-orm';
import { encodeTime } from 'ulid';
import type { Db } from '../../db/client';
import { pruneOnlineScores } from '../modules/evals/online';
import { queryRows } from '../../db/rows';
import { events, userSessions } from '../../db/schema';
import { AUDIT_RETENTION_DAYS } from '../modules/audit/actions';
import { EVENT_RETENTION_DAYS } from '../modules/vocabulary/event-types';
import { pruneLedger } from '../modules/budgets/ledger';
import { pruneReservations } from '../modules/budgets/reserve';
import { pruneUsage } from '../modules/usage/prune';
import { queue } from '../platform/jobs/index';

// Housekeeping run by the workers: dashboard sessions that ended more than a day ago are
// deleted (their JWTs are dead already; the rows only answered "no"); events older than 30 days
// go, with their deliveries; usage rollups past their retention go, and budgets' ledger rows of
// periods that ended over 400 days ago (budgets/ledger.ts `pruneLedger`), and audit records past 365 days.
export const maintenanceQueue = queue<{ requestedBy?: string }>('maintenance', { retryLimit: 1, expireInSeconds: 300 });

/** Every 15 minutes, on whichever worker the schedule lands. */
export const MAINTENANCE_CRON = '*/15 * * * *';

export async function runMaintenance(
  db: Db,
  now = new Date(),
): Promise<{ sessionsDeleted: number; eventsDeleted: number; usageRowsDeleted: number; ledgerRowsDeleted: number; auditEventsDeleted: number; onlineScoresDeleted: number }> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const deleted = await db
    .delete(userSessions)
    .where(or(lt(userSessions.expiresAt, dayAgo), and(isNotNull(userSessions.revokedAt), lt(userSessions.revokedAt, dayAgo))))
    .returning({ id: userSessions.id });
  // Event ids start with their creation time (ULID): every id below this one is older than the retention.
  const oldest = `evt_${encodeTime(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000, 10)}`;
  const expired = await db.delete(events).where(lt(events.id, oldest)).returning({ id: events.id });
  // Audit records past 365 days (docs/audit.md), by id as events are, through the one function
  // the log's trigger lets delete (migration 0023): any other DELETE or a TRUNCATE is refused.
  const auditOldest = `aud_${encodeTime(now.getTime() - AUDIT_RETENTION_DAYS * 86_400_000, 10)}`;
  const [audited] = await queryRows<{ n: number }>(db, sql`select aas_prune_audit_events(${auditOldest}) as n`);
  const usageRowsDeleted = await pruneUsage(db, now);
  // Budget reservations of runs that ended without settling them (a lost process), and past their expiry.
  const ledgerRowsDeleted = (await pruneLedger(db, now)) + (await pruneReservations(db));
  // Online scoring's history past its retention (docs/evals.md); the scores stay on the executions.
  const onlineScoresDeleted = await pruneOnlineScores(db, now);
  return { sessionsDeleted: deleted.length, eventsDeleted: expired.length, usageRowsDeleted, ledgerRowsDeleted, auditEventsDeleted: Number(audited?.n ?? 0), onlineScoresDeleted };
}
