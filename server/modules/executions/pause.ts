import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows, writeAll } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { executions, type AwaitedCall, type PausedRun, type StoredDecision, type StoredStep } from '../../../db/schema';
import { CHANNELS, notifyCall } from '../../platform/notify';
import { recordedEvent, type RecordedEvent } from './events';
import { committed, momentParts, statementWith } from './participants';
import type { StatementPart } from '../vocabulary/participants';
import { databaseClock, eventsInsert, executionView, queuedSignal, type Clock, type ExecutionRow, type RunTail } from './lifecycle';
import { move, PAUSED_STATUS } from '../vocabulary/statuses';

// The lifecycle's pause for approval (docs/approvals.md), with lifecycle.ts the only writer of
// `status`:
//   running → requires_action (the worker's own `pause`, fenced by its attempt), then decisions
//   recorded under the row's lock (`recordDecisions`), and with the last one requires_action →
//   queued: a worker's fair claim resumes the run from what it kept (`approval`), so nothing that
//   ran before the pause runs again and each approved call is made by that one claim.
// A paused run holds no worker and no concurrency slot (admission counts `running` only); its
// conversation stays busy (finish frees it).

/** The event a paused run's stream ends at: the calls awaiting a decision, and the execution. */
export function pauseEvent(row: ExecutionRow): RecordedEvent<'tool.approval_requested'> {
  const execution = executionView(row);
  return recordedEvent('tool.approval_requested', { toolCalls: execution.requiredAction?.toolCalls ?? [], step: row.approval?.step ?? 0, execution });
}

/** The earliest expiry of the calls still awaiting a decision (null: none left). */
const dueAt = (calls: AwaitedCall[]) => {
  const pending = calls.filter((c) => c.decision === null).map((c) => c.expiresAt);
  return pending.length > 0 ? new Date(pending.sort()[0]!) : null;
};

export interface Pause {
  steps: StoredStep[];
  usage: { inputTokens: number; outputTokens: number };
  model: string;
  approval: PausedRun;
}

/** A worker's own pause, and its resumption once every call is decided (statuses.ts TRANSITIONS). */
const PAUSE = move(['running'], PAUSED_STATUS);
const RESUME = move([PAUSED_STATUS], 'queued');

/**
 * running → requires_action: a worker's own pause, with its unwritten events and the
 * `tool.approval_requested` event (at the terminal event's number: it ends the streams), the
 * `execution.requires_action` outbox event, and the freed slot's wake-up, in one transaction.
 * Null when the run is no longer this attempt's (cancelled, or declared lost).
 */
export async function pause(db: Db, id: string, attempt: number, p: Pause, run: RunTail): Promise<ExecutionRow | null> {
  let parts: StatementPart[] = [];
  const paused = await transaction(db, async (tx) => {
    const [row] = await tx
      .update(executions)
      .set({
        status: PAUSE.to,
        eventSeq: sql`${run.terminalSeq}::int`,
        steps: p.steps,
        inputTokens: p.usage.inputTokens,
        outputTokens: p.usage.outputTokens,
        model: p.model,
        approval: p.approval,
        approvalDueAt: dueAt(p.approval.calls),
      })
      .where(and(eq(executions.id, id), inArray(executions.status, [...PAUSE.from]), eq(executions.attempt, attempt)))
      .returning();
    if (!row) return null;
    // The participants' parts: the `execution.requires_action` outbox event.
    await tx.execute(
      statementWith(
        [eventsInsert(id, [...run.pending, { seq: row.eventSeq, ...pauseEvent(row) }])],
        // `final`: waiters answer (a `wait` answers at the pause as at a final status).
        [notifyCall(CHANNELS.executionEvents, { id, seq: row.eventSeq, final: true }), queuedSignal(row)],
        (parts = [...momentParts('paused', row, executionView(row)), ...(run.parts ?? [])]),
      ),
    );
    return row;
  });
  if (paused) committed(parts);
  return paused;
}

/** A paused run of the scope, its row locked until the transaction ends (decisions are serialised by it); null: not found. */
export async function lockPaused(tx: Db, scope: { workspaceId: string; environment: string }, id: string): Promise<ExecutionRow | null> {
  const [row] = await tx
    .select()
    .from(executions)
    .where(and(eq(executions.id, id), eq(executions.workspaceId, scope.workspaceId), eq(executions.environment, scope.environment as 'live')))
    .for('update');
  return row ?? null;
}

/** A decision as steps and events show it: the deciding request's span goes to the trace only (docs/traces.md). */
export const shownDecision = ({ trace: _, ...decision }: StoredDecision): Omit<StoredDecision, 'trace'> => decision;

/**
 * Records decisions on calls of a paused run whose row `lockPaused` holds: each in the run's
 * approval and its step (`toolCalls[].approval`), a `tool.approval_decided` event each. With no
 * call left undecided the run is queued again (its wait added to `awaited_ms`) and the workers
 * are woken. Returns the row as written.
 */
export async function recordDecisions(tx: Db, row: ExecutionRow, decisions: Map<string, StoredDecision>, clock: Clock = databaseClock): Promise<ExecutionRow> {
  const approval = row.approval!;
  const calls = approval.calls.map((c) => (decisions.has(c.id) ? { ...c, decision: decisions.get(c.id)! } : c));
  const steps = row.steps.map((s) =>
    s.index === approval.step ? { ...s, toolCalls: s.toolCalls.map((c) => (decisions.has(c.id) ? { ...c, approval: shownDecision(decisions.get(c.id)!) } : c)) } : s,
  );
  const due = dueAt(calls);
  const events = calls
    .filter((c) => decisions.has(c.id))
    .map((c, i) => ({ seq: row.eventSeq + 1 + i, ...recordedEvent('tool.approval_decided', { toolCallId: c.id, name: c.tool, step: approval.step, ...shownDecision(c.decision!) }) }));
  const last = row.eventSeq + events.length;
  const resume = due === null;
  const [written] = await tx
    .update(executions)
    .set({
      approval: { ...approval, calls },
      steps,
      eventSeq: last,
      approvalDueAt: due,
      ...(resume
        ? {
            status: RESUME.to,
            awaitedMs: sql`${executions.awaitedMs} + greatest(0, (extract(epoch from ${clock.now()} - ${approval.pausedAt}::timestamptz) * 1000)::int)`,
          }
        : {}),
    })
    .where(and(eq(executions.id, row.id), inArray(executions.status, [...RESUME.from])))
    .returning();
  const signals = [notifyCall(CHANNELS.executionEvents, { id: row.id, seq: last, final: false })];
  if (resume) signals.push(notifyCall(CHANNELS.work, 'executions'));
  await tx.execute(writeAll([eventsInsert(row.id, events)], signals));
  return written!;
}

/**
 * Denies, as `"expired"` and by the service, every call whose `expiresAt` has passed, run by run
 * (each in its own transaction, under its row lock: a person's decision racing it wins or loses
 * whole), the earliest due first, in batches of `limit` until none is left or `budgetMs` has
 * passed (one tenant's thousand calls expiring at once delay the others' by seconds, not by
 * sweeps). Returns the runs it decided for.
 */
export async function expireApprovals(db: Db, clock: Clock = databaseClock, limit = 100, budgetMs = 2_000): Promise<string[]> {
  const done: string[] = [];
  const until = Date.now() + budgetMs;
  for (;;) {
    const due = await queryRows<{ id: string; workspace_id: string; environment: string }>(
      db,
      sql`select id, workspace_id, environment from executions
          where status = ${PAUSED_STATUS} and approval_due_at <= ${clock.now()} order by approval_due_at limit ${limit}`,
    );
    const before = done.length;
    for (const d of due) if (await expireRun(db, d, clock)) done.push(d.id);
    if (due.length < limit || done.length === before || Date.now() >= until) return done;
  }
}

/** Denies the expired calls of one paused run; false when none was left to deny. */
function expireRun(db: Db, d: { id: string; workspace_id: string; environment: string }, clock: Clock): Promise<boolean> {
  return transaction(db, async (tx) => {
    const row = await lockPaused(tx, { workspaceId: d.workspace_id, environment: d.environment }, d.id);
    if (!row || row.status !== PAUSED_STATUS || !row.approval) return false;
    const [{ now }] = (await queryRows<{ now: Date | string }>(tx, sql`select ${clock.now()} as now`)) as [{ now: Date | string }];
    return denyExpired(tx, row, new Date(now), clock);
  });
}

/**
 * Denies as `"expired"`, by the service, the calls of paused run `row` (locked by `lockPaused`)
 * whose `expiresAt` is at or before `at`: the sweep's, and a late decision's (approvals.ts). False
 * when none was due.
 */
export async function denyExpired(tx: Db, row: ExecutionRow, at: Date, clock: Clock = databaseClock): Promise<boolean> {
  const expired = row.approval!.calls.filter((c) => c.decision === null && new Date(c.expiresAt) <= at);
  if (expired.length === 0) return false;
  const decision = (c: AwaitedCall): StoredDecision => ({ approved: false, reason: 'expired', arguments: c.arguments, decidedBy: { type: 'system' }, decidedAt: at.toISOString() });
  await recordDecisions(tx, row, new Map(expired.map((c) => [c.id, decision(c)])), clock);
  return true;
}
