import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { userSessions } from '../../../db/schema';

// Dashboard sessions as rows: the JWT names one, and the session is valid only while its row
// is neither revoked nor expired. Revoking is immediate for every process.

export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export async function startSession(db: Db, userId: string, now = new Date()): Promise<string> {
  const id = randomBytes(24).toString('base64url');
  await db.insert(userSessions).values({ id, userId, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000) });
  return id;
}

export async function isSessionActive(db: Db, sessionId: string, userId: string, now = new Date()): Promise<boolean> {
  const [row] = await db
    .select({ id: userSessions.id })
    .from(userSessions)
    .where(
      and(
        eq(userSessions.id, sessionId),
        eq(userSessions.userId, userId),
        isNull(userSessions.revokedAt),
        gt(userSessions.expiresAt, now),
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function endSession(db: Db, sessionId: string, now = new Date()): Promise<void> {
  await db.update(userSessions).set({ revokedAt: now }).where(and(eq(userSessions.id, sessionId), isNull(userSessions.revokedAt)));
}

/** Ends every session of the user, or every one but `keep` (a password change keeps its own). */
export async function endAllSessions(db: Db, userId: string, keep?: string, now = new Date()): Promise<void> {
  await db
    .update(userSessions)
    .set({ revokedAt: now })
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.revokedAt), keep ? ne(userSessions.id, keep) : undefined));
}
