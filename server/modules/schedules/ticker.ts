import { and, asc, eq, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { transaction } from '../../../db/transaction';
import { schedules } from '../../../db/schema';
import { log } from '../../platform/log';
import { repeat } from '../../platform/repeat';
import { enqueueOccurrence } from '../executions/engine';
import { emit } from '../events/emit';
import { scheduledRun, scheduleView } from './service';
import { catchUp } from './timing';

// Firing schedules (docs/schedules.md, "How schedules fire"). A tick takes the due schedules
// (`next_run_at <= now`) FOR UPDATE SKIP LOCKED and, in the same transaction, creates each one's
// execution and moves its `next_run_at` on. An occurrence therefore has exactly one execution
// whatever the number of processes ticking: a second tick at once skips the rows the first holds,
// and finds them no longer due once it commits. Every process that runs workers ticks at the
// start of each minute (`startScheduleTicker`).

/** Schedules one tick fires at most (a larger backlog takes the next ticks, at once). */
const BATCH = 200;

export interface TickResult {
  /** Executions created. */
  fired: number;
  /** Occurrences that created nothing: the previous run still active (`overlap: skip`), or the start refused (the agent gone, the conversation busy). */
  skipped: number;
  /** Whether due schedules may remain (the batch was full). */
  more: boolean;
}

/** Fires the schedules due at `now` (the caller's clock: injectable, as the tests run minutes in moments). */
export async function tick(db: Db, now = new Date()): Promise<TickResult> {
  return transaction(db, async (tx) => {
    const due = await tx
      .select()
      .from(schedules)
      .where(and(isNotNull(schedules.nextRunAt), lte(schedules.nextRunAt, now)))
      .orderBy(asc(schedules.nextRunAt))
      .limit(BATCH)
      .for('update', { skipLocked: true });
    let fired = 0;
    let skipped = 0;
    for (const s of due) {
      let when: ReturnType<typeof catchUp>;
      try {
        when = catchUp(s.cron, s.timezone, s.nextRunAt!, now);
      } catch (err) {
        // Checked when written, so only a row changed by hand gets here: it stops, alone, and says so.
        log.error({ err, schedule: s.id }, 'a schedule’s cron or time zone cannot be read; the schedule is disabled');
        await tx.update(schedules).set({ nextRunAt: null, enabled: false, updatedAt: sql`now()` }).where(eq(schedules.id, s.id));
        continue;
      }
      const { run, next } = when;
      const ended = next === null || (s.endAt !== null && next.getTime() > s.endAt.getTime());
      let executionId: string | null = null;
      if (run && (s.endAt === null || run.getTime() <= s.endAt.getTime())) {
        executionId = await fire(tx, s, run);
        if (executionId) fired++;
        else skipped++;
      }
      const [moved] = await tx
        .update(schedules)
        .set({
          nextRunAt: ended ? null : next,
          enabled: ended ? false : s.enabled,
          ...(executionId ? { lastRunAt: run, lastExecutionId: executionId } : {}),
          updatedAt: sql`now()`,
        })
        .where(eq(schedules.id, s.id))
        .returning();
      // Its end is a change a subscriber hears of (a run is told by its execution's events).
      if (ended && moved) await emit(tx, moved, 'schedule.updated', scheduleView(moved));
    }
    return { fired, skipped, more: due.length === BATCH };
  });
}

/** Creates the occurrence's execution through the engine (its overlap rule there); null when it creates none. */
async function fire(tx: Db, s: typeof schedules.$inferSelect, occurrence: Date): Promise<string | null> {
  const run = scheduledRun(s, occurrence);
  const fired = await enqueueOccurrence(tx, { scheduleId: s.id, workspaceId: s.workspaceId, environment: s.environment, agentId: s.agentId, overlap: s.overlap, conversationId: s.conversationId, keyId: s.keyId, ...run });
  return 'executionId' in fired ? fired.executionId : null;
}

/** Ticks at once, then a few milliseconds past the start of every minute (an occurrence at hh:mm:00 is then due), until stopped. */
export function startScheduleTicker(db: Db): () => Promise<void> {
  return repeat(
    async () => {
      try {
        while ((await tick(db)).more);
      } catch (err) {
        log.error({ err }, 'schedule tick failed');
      }
    },
    () => 60_000 - (Date.now() % 60_000) + 25,
    { now: true },
  );
}
