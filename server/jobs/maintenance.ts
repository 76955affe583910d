import { and, isNotNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { userSessions } from '../../db/schema';
import { queue } from './index';

// Housekeeping run by the workers: dashboard sessions that ended more than a day ago are
// deleted (their JWTs are dead already; the rows only answered "no").
export const maintenanceQueue = queue<{ requestedBy?: string }>('maintenance', { retryLimit: 1, expireInSeconds: 300 });

/** Every 15 minutes, on whichever worker the schedule lands. */
export const MAINTENANCE_CRON = '*/15 * * * *';

export async function runMaintenance(db: Db, now = new Date()): Promise<{ sessionsDeleted: number }> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const deleted = await db
    .delete(userSessions)
    .where(or(lt(userSessions.expiresAt, dayAgo), and(isNotNull(userSessions.revokedAt), lt(userSessions.revokedAt, dayAgo))))
    .returning({ id: userSessions.id });
  return { sessionsDeleted: deleted.length };
}
