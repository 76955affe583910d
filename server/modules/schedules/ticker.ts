import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { transaction } from '../../../db/transaction';
import { executions, schedules } from '../../../db/schema';
import { ApiError } from '../../platform/errors';
import { log } from '../../platform/log';
import { repeat } from '../../platform/repeat';
import { lineState, lockScheduleLine, MAX_WAITING_TURNS } from '../executions/lines';
import { startExecution } from '../executions/service';
import { ACTIVE_STATUSES } from '../executions/statuses';
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

/**
 * Creates the occurrence's execution (in a savepoint: a refused start leaves the tick whole); null
 * when it creates none. While the previous run is active, `skip` creates nothing and `enqueue`
 * creates a queued turn (executions/lines.ts): in the conversation's line when the schedule
 * continues one, else in the schedule's own line (under its lock).
 */
async function fire(tx: Db, s: typeof schedules.$inferSelect, occurrence: Date): Promise<string | null> {
  let waiting: { on: 'schedule'; turn: number } | undefined;
  if (s.overlap === 'skip' || s.conversationId === null) {
    if (s.overlap === 'enqueue') await lockScheduleLine(tx, s.id);
    const [active] = await tx
      .select({ id: executions.id })
      .from(executions)
      .where(
        and(
          eq(executions.workspaceId, s.workspaceId),
          eq(executions.environment, s.environment),
          eq(executions.scheduleId, s.id),
          inArray(executions.status, [...ACTIVE_STATUSES]),
        ),
      )
      .limit(1);
    if (active && s.overlap === 'skip') return null;
    if (active) {
      const line = await lineState(tx, { on: 'schedule', id: s.id });
      if (line.waiting >= MAX_WAITING_TURNS) {
        log.warn({ schedule: s.id }, `a schedule’s occurrence was skipped: ${MAX_WAITING_TURNS} of its runs already wait`);
        return null;
      }
      waiting = { on: 'schedule', turn: line.nextTurn };
    }
  }
  try {
    const run = scheduledRun(s, occurrence);
    const { row } = await transaction(tx, (sp) =>
      startExecution(sp, { workspaceId: s.workspaceId, environment: s.environment }, s.agentId, run.input, { trigger: run.trigger, ...(waiting ? { waiting } : {}) }),
    );
    return row.id;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    log.warn({ schedule: s.id, code: err.code }, 'a schedule’s occurrence created no execution');
    return null;
  }
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
