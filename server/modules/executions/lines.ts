import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { newId } from '../../platform/ids';
import { CHANNELS, notifyCall } from '../../platform/notify';
import { advisoryXactLock } from '../../../db/advisory';

// Queued turns (docs/executions.md, "Queued turns"): executions waiting in a line for the run
// ahead of them, in order. Two lines exist:
// - a conversation's: `execute` with `ifBusy: "enqueue"` on a busy conversation (and a schedule's
//   `overlap: "enqueue"` run that continues a conversation). Its lock is the conversation row,
//   whose `active_execution_id` is the run at the head.
// - a schedule's, for `overlap: "enqueue"` runs that each start their own conversation. Its lock
//   is an advisory lock per schedule (`lockScheduleLine`).
// A waiting execution is `queued` with a `waiting_turn`: no worker claims it. The end of the run
// ahead of it (`finish`, in the same transaction, under the line's lock) hands the line on to
// the next one: its turn is cleared, a conversation turn takes the conversation and writes its
// user message then (so the history reads in order), and the workers are woken.

/** Turns that may wait in one line (docs/executions.md, "Queued turns": 10); beyond, 409 `conversation_busy` (a schedule's occurrence is skipped). */
export const MAX_WAITING_TURNS = 10;

export type Line = { on: 'conversation'; id: string } | { on: 'schedule'; id: string };

const column = (line: Line) => (line.on === 'conversation' ? sql.raw('conversation_id') : sql.raw('schedule_id'));

/** Turns waiting in the line and the next free place in it. Call under the line's lock. */
export async function lineState(tx: Db, line: Line): Promise<{ waiting: number; nextTurn: number }> {
  const [row] = await queryRows<{ waiting: number; last: number | null }>(
    tx,
    sql`select count(*)::int as waiting, max(waiting_turn)::int as last from executions
        where ${column(line)} = ${line.id} and waiting_turn is not null and waiting_on = ${line.on} and status = 'queued'`,
  );
  return { waiting: row?.waiting ?? 0, nextTurn: (row?.last ?? 0) + 1 };
}

/** The lock of a schedule's line (a transaction-level advisory lock): the tick's enqueue and the hand-on take it. */
export function lockScheduleLine(tx: Db, scheduleId: string): Promise<unknown> {
  return advisoryXactLock(tx, sql`hashtext(${`schedule-line:${scheduleId}`})`);
}

interface Finished {
  id: string;
  conversationId: string;
  scheduleId: string | null;
  waitingTurn: number | null;
}

/**
 * After an execution became final (in `finish`'s transaction, after its conversation was freed):
 * if it was at the head of a line, the next turn of each of its lines may run. A turn cancelled
 * while it waited hands nothing on: the run ahead of it still holds the line. The next turn is
 * taken SKIP LOCKED: a waiting turn locked at that moment is being cancelled, and waiting for it
 * could return no row at all (a LIMIT 1 whose row stops matching), which would stall the line.
 * `conversation: false`: no turn waits in the conversation's line (the end's own statement read
 * it, on the embedded database: lifecycle.ts `endAwaited`), so its statement is not sent.
 */
export async function handOn(tx: Db, done: Finished, opts: { conversation?: boolean } = {}): Promise<void> {
  const line = opts.conversation === false ? null : handOnStatement(done);
  if (line !== null) await queryRows(tx, line);
  if (done.waitingTurn !== null) return;
  if (done.scheduleId === null) return;
  await handOnSchedule(tx, done.scheduleId);
}

/** The turns waiting in a conversation's line, as a condition on `executions`. */
const waitingInConversation = (conversationId: string): SQL =>
  sql`conversation_id = ${conversationId} and waiting_turn is not null and waiting_on = 'conversation' and status = 'queued'`;

/** Whether a turn waits in a conversation's line (an end's statement reads it on the embedded database: lifecycle.ts `endAwaited`). */
export const conversationTurnWaits = (conversationId: string): SQL => sql`exists (select 1 from executions where ${waitingInConversation(conversationId)})`;

/**
 * The hand-on's statement for the run's conversation line (null: the run was a waiting turn,
 * which hands nothing on). It is the whole hand-on of a run that no schedule started: `finish`
 * then sends it with its own statements and the COMMIT, unawaited (lifecycle.ts).
 */
export function handOnStatement(done: Finished): SQL | null {
  if (done.waitingTurn !== null) return null;
  return sql`with next as (
          select id, input from executions
          where ${waitingInConversation(done.conversationId)}
          order by waiting_turn limit 1 for update skip locked
        ), promoted as (
          update executions e set waiting_turn = null, waiting_on = null from next where e.id = next.id returning e.id, e.input
        ), taken as (
          update conversations c set active_execution_id = p.id, message_count = c.message_count + 1, last_message_at = now(), updated_at = now()
          from promoted p where c.id = ${done.conversationId} and c.active_execution_id is null returning c.id
        ), written as (
          insert into messages (id, conversation_id, execution_id, role, content, model_message)
          select ${newId('msg')}, ${done.conversationId}, p.id, 'user', p.input, json_build_object('role', 'user', 'content', p.input) from promoted p
          returning id
        )
        select ${notifyCall(CHANNELS.work, 'executions')} from promoted`;
}

async function handOnSchedule(tx: Db, scheduleId: string): Promise<void> {
  // A schedule's line has its own lock (lockScheduleLine), which the tick takes while it decides
  // to enqueue: the tick's new turn is either committed (and handed on now) or decided after this
  // commit (and then finds no active run). Not the schedule's row: a tick skips locked rows, and
  // would skip the schedule's occurrence. Only schedules whose runs wait in their own line take it.
  const [line] = await queryRows<{ id: string }>(
    tx,
    sql`select id from schedules where id = ${scheduleId} and overlap = 'enqueue' and conversation_id is null`,
  );
  if (!line) return;
  await lockScheduleLine(tx, scheduleId);
  await queryRows(
    tx,
    sql`with next as (
          select id from executions
          where schedule_id = ${scheduleId} and waiting_turn is not null and waiting_on = 'schedule' and status = 'queued'
          order by waiting_turn limit 1 for update skip locked
        ), promoted as (
          update executions e set waiting_turn = null, waiting_on = null from next where e.id = next.id returning e.id
        )
        select ${notifyCall(CHANNELS.work, 'executions')} from promoted`,
  );
}
