import { and, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { endsPipelined, sendInOrder, transaction } from '../../../db/transaction';
import { isPglite } from '../../../db/advisory';
import { intArray, queryRows, textArray } from '../../../db/rows';
import { conversations, executions, messages, type ExecutionStatus, type StoredStep } from '../../../db/schema';
import { limitOf, lockTenant, type Tenant } from './admission';
import { conversationTurnWaits, handOn, handOnStatement } from './lines';
import { committed, momentParts, statementWith } from './participants';
import type { StatementPart } from '../vocabulary/participants';
import { recordedEvent, terminalEventType, type ProgressEventType, type RecordedEvent } from './events';
import { packEvents, storedRowColumns } from './packs';
import type { ExecutionErrorCode, ExecutionView } from './schemas';
import { ACTIVE_STATUSES, move, PAUSED_STATUS } from '../vocabulary/statuses';
import { traceIdOf } from '../vocabulary/trace-ids';
import { env } from '../../platform/env.js';
import { CHANNELS, notifyCall } from '../../platform/notify';

// The one module that moves an execution through its states (docs/api.md, "Executions"):
//   queued → running → succeeded | failed | cancelled, and queued → cancelled.
// Every transition is a conditional UPDATE on the status (and, for a worker's writes, on its
// `attempt`): a late worker changes 0 rows and its write is dropped, so `cancelled` and every
// final state stay as they are. A final transition also appends the terminal event, frees the
// conversation, signals the change and writes what the run's participants join to it
// (participants.ts: the outbox event, the usage record, the last call's charge), in one
// transaction.

export type ExecutionRow = typeof executions.$inferSelect;
export { isFinal } from '../vocabulary/statuses';

/**
 * A worker stops renewing its heartbeat only when it died: this long without one is `worker_lost`
 * (EXECUTION_HEARTBEAT_SECONDS, 5 s; EXECUTION_LOST_AFTER_SECONDS, 25 s).
 */
export const HEARTBEAT_MS = Math.round(env.EXECUTION_HEARTBEAT_SECONDS * 1000);
export const LOST_AFTER_MS = Math.round(env.EXECUTION_LOST_AFTER_SECONDS * 1000);

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The time liveness is judged by: the database's own, or a fixed one a test sets and moves. */
export interface Clock {
  now(): SQL;
}
export const databaseClock: Clock = { now: () => sql`now()` };
/** A clock at `ms` (epoch milliseconds) that `advance` moves on: for tests of the lifecycle. */
export function fixedClock(ms: number): Clock & { advance(byMs: number): void } {
  let at = ms;
  return { now: () => sql`${new Date(at).toISOString()}::timestamptz`, advance: (byMs) => void (at += byMs) };
}

/** The execution as the API shows it. */
export function executionView(row: ExecutionRow): ExecutionView {
  return {
    id: row.id,
    agentId: row.agentId,
    conversationId: row.conversationId,
    status: row.status,
    input: row.input,
    output: row.output,
    requiredAction: requiredAction(row),
    steps: row.steps,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, totalTokens: row.inputTokens + row.outputTokens },
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    model: row.model,
    cached: row.cached,
    metadata: row.metadata,
    trigger: row.trigger,
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    completedAt: iso(row.completedAt),
    traceId: traceIdOf(row),
    agentVersion: row.agentVersion,
    outputJson: row.outputJson ?? null,
    scores: row.scores ?? null,
    replayOf: row.replay ? { executionId: row.replay.executionId, fromStep: row.replay.fromStep, tools: row.replay.tools } : null,
  };
}

/** What a paused run waits for: its calls still undecided (null in every other status). */
export function requiredAction(row: Pick<ExecutionRow, 'status' | 'approval'>): ExecutionView['requiredAction'] {
  if (row.status !== PAUSED_STATUS || !row.approval) return null;
  const toolCalls = row.approval.calls
    .filter((c) => c.decision === null)
    .map((c) => ({ id: c.id, tool: c.tool, arguments: c.arguments, requestedAt: c.requestedAt, expiresAt: c.expiresAt }));
  return { type: 'approve_tool_calls', toolCalls };
}

/**
 * Sequence numbers a running worker may hand out ahead of the events it has written
 * (docs/executions.md). Its events reach streams in its own process before they are written, so
 * `event_seq` is kept this far ahead of them: a terminal event written by anyone else (a cancel,
 * the worker_lost sweeper) takes `event_seq + 1` and so sorts after every event already sent.
 */
export const RESERVE = 10_000;

/** A worker's claim: queued → running (a new run, or a paused one resumed and queued again). */
const CLAIM = move(['queued'], 'running');

/** The columns that start a run (or resume a paused one): running, a new attempt, the first heartbeat, the sequence reserved. */
export const startFields = {
  status: CLAIM.to,
  attempt: sql`${executions.attempt} + 1`,
  // A run resumed after a pause for approval keeps its first start.
  startedAt: sql`coalesce(${executions.startedAt}, now())`,
  heartbeatAt: sql`now()`,
  eventSeq: sql`${executions.eventSeq} + ${1 + RESERVE}::int`,
} as const;

/** The sequence number of a just-started execution's `execution.started` event. */
export const startedSeq = (row: ExecutionRow) => row.eventSeq - RESERVE;

/**
 * Inserts events of one execution with their sequence numbers, as part of a statement
 * (db/rows.ts `writeAll`): one parameter for the events (as JSON), however many there are (the
 * query builder spent milliseconds of CPU binding a run's forty deltas one value at a time).
 * Its signal (NOTIFY `aas_execution`, delivered at the commit) goes in the same statement.
 */
export const eventsInsert = (id: string, events: (RecordedEvent & { seq: number })[]): SQL =>
  sql`insert into execution_events (execution_id, seq, last_seq, type, data)
      select ${id}, ${storedRowColumns('e')} from json_array_elements(${JSON.stringify(packEvents(events))}::json) as e(value)`;

/**
 * What records a just-started execution, as parts of a statement: its `execution.started` event
 * with its signal, and what the participants join to it (the outbox event), in the transaction
 * that started it.
 */
export function startedParts(row: ExecutionRow): StatementPart[] {
  const view = executionView(row);
  const seq = startedSeq(row);
  const started = eventsInsert(row.id, [{ seq, ...recordedEvent('execution.started', { execution: view }) }]);
  return [{ writes: [started], signals: [notifyCall(CHANNELS.executionEvents, { id: row.id, seq, final: false })] }, ...momentParts('started', row, view)];
}

/** Records a just-started execution (`startedParts`) in one statement. */
export function recordStarted(tx: Db, row: ExecutionRow): Promise<unknown> {
  return tx.execute(statementWith([], [], startedParts(row)));
}

/**
 * Starts queued runs: up to `count` of each tenant, its oldest first, never past its
 * concurrency limit (counted under its admission lock, so exact across processes), all in one
 * transaction with their `execution.started` events. `read` runs in the same transaction,
 * pipelined with the events (what the runs need: agents, histories). Returns the started rows.
 */
export async function claimQueued<T>(
  db: Db,
  grants: { tenant: Tenant; count: number }[],
  read: (tx: Db, rows: ExecutionRow[]) => Promise<T>,
): Promise<{ rows: ExecutionRow[]; read: T } | null> {
  if (grants.length === 0) return null;
  // One lock order for every claimer: no deadlock between two of them.
  const sorted = [...grants].sort((a, b) => tenantKey(a.tenant).localeCompare(tenantKey(b.tenant)));
  return transaction(db, async (tx) => {
    const claims = sorted.map(({ tenant: t, count }) => {
      // The lock goes out first (lockTenant sends it at once), the claim after it on the same connection.
      const lock = lockTenant(tx, t);
      const rows = tx
        .update(executions)
        .set(startFields)
        // `= any(array(…))`: the chosen ids are computed once (an InitPlan). As `in (subquery)`
        // the planner may run the subquery again for each row it compares, each run skipping
        // the rows the last one locked and so choosing more than the limit allows.
        .where(
          sql`${executions.id} = any(array(
            select id from executions
            where workspace_id = ${t.workspaceId} and environment = ${t.environment} and status = ${CLAIM.from[0]} and waiting_turn is null
            order by id
            limit greatest(0, least(${count}::int,
              (select ${limitOf('w')} from workspaces w where w.id = ${t.workspaceId})
              - (select count(*) from executions r where r.workspace_id = ${t.workspaceId} and r.environment = ${t.environment} and r.status = 'running')))
            for update skip locked))`,
        )
        .returning()
        .execute();
      return lock.then(() => rows);
    });
    const rows = (await Promise.all(claims)).flat();
    if (rows.length === 0) return { rows, read: await read(tx, rows) };
    const [got] = await Promise.all([read(tx, rows), ...rows.map((row) => recordStarted(tx, row))]);
    return { rows, read: got };
  });
}

const tenantKey = (t: Tenant) => `${t.workspaceId}:${t.environment}`;

export interface RunRef {
  id: string;
  attempt: number;
}

/**
 * Renews the heartbeat of every run a process holds, in one statement. Returns the ids that are
 * still its own; the others were cancelled or declared lost (their worker aborts them).
 */
export async function heartbeat(db: Db, runs: RunRef[], clock = databaseClock): Promise<Set<string>> {
  if (runs.length === 0) return new Set();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update executions e set heartbeat_at = ${clock.now()}
        from unnest(${textArray(runs.map((r) => r.id))}, ${intArray(runs.map((r) => r.attempt))}) as mine(id, attempt)
        where e.id = mine.id and e.attempt = mine.attempt and e.status = 'running'
        returning e.id`,
  );
  return new Set(rows.map((r) => r.id));
}

/** An event a running worker records between `execution.started` and the terminal event (events.ts). */
export type RunEvent = RecordedEvent<ProgressEventType>;

/** An event of a run with the sequence number its worker gave it. */
export type SeqEvent = RunEvent & { seq: number };

/** A running execution's events to write (`appendEvents`). */
export interface Append {
  id: string;
  attempt: number;
  events: SeqEvent[];
  /** The reservation moves up to here. */
  reserveTo: number;
  /** What the run's participants join to it (spans that ended). */
  parts: StatementPart[];
  /** The last event already written: what the NOTIFY names when there are no events. */
  written: number;
}

/**
 * Writes events of a running execution in one statement (with their sequence numbers, then one
 * NOTIFY), moving the reservation up to `reserveTo`, with what the run's participants join to it
 * (`parts`: spans that ended). With no events, the NOTIFY names `written`, the last event already
 * written (a reader waiting for the run's write wakes). False when the worker's attempt no longer
 * owns the run: no event is written.
 */
export async function appendEvents(db: Db, id: string, attempt: number, events: SeqEvent[], reserveTo: number, parts: StatementPart[] = [], written = 0): Promise<boolean> {
  return (await appendEventsOf(db, [{ id, attempt, events, reserveTo, parts, written }])).has(id);
}

/**
 * `appendEvents` for several running executions in one statement (appender.ts gathers them): each
 * run's events, reservation, parts and NOTIFY as if written alone. Returns the ids whose attempt
 * still owns its run (the others wrote no event). Each id at most once.
 */
export async function appendEventsOf(db: Db, batch: Append[]): Promise<Set<string>> {
  const extra = batch.flatMap((b) => b.parts.flatMap((p) => p.writes ?? []));
  const rows = await queryRows<{ id: string }>(
    db,
    sql`with b as (
      select * from json_to_recordset(${JSON.stringify(batch.map((b) => ({ id: b.id, attempt: b.attempt, reserve_to: b.reserveTo, written: b.written, events: packEvents(b.events) })))}::json)
        as b(id text, attempt int, reserve_to int, written int, events json)
    ), s as (
      update executions e set event_seq = greatest(e.event_seq, b.reserve_to)
      from b where e.id = b.id and e.status = 'running' and e.attempt = b.attempt
      returning e.id
    ), ins as (
      insert into execution_events (execution_id, seq, last_seq, type, data)
      select b.id, ${storedRowColumns('ev')}
      from b join s on s.id = b.id, json_array_elements(b.events) as ev(value)
      returning execution_id, coalesce(last_seq, seq) as seq
    )${sql.join(extra.map((w, i) => sql`, ${sql.raw(`x${i}`)} as (${w})`), sql``)}
    select s.id, ${notifyCall(CHANNELS.executionEvents, sql`s.id || ':' || coalesce(i.last, b.written)`)}
    from s join b on b.id = s.id
    left join (select execution_id, max(seq) as last from ins group by execution_id) i on i.execution_id = s.id`,
  );
  return new Set(rows.map((r) => r.id));
}

export interface Outcome {
  status: 'succeeded' | 'failed' | 'cancelled';
  output?: string | null;
  /** A structured answer, parsed (docs/versions.md, "Structured outputs"). */
  outputJson?: unknown;
  steps?: StoredStep[];
  usage?: { inputTokens: number; outputTokens: number };
  error?: { code: ExecutionErrorCode; message: string } | null;
  cached?: boolean;
  model?: string;
  /** Messages the run adds to its conversation (its answer, tool calls and results). */
  messages?: (typeof messages.$inferInsert)[];
}

export interface FinishGuard {
  /** The states the execution may be in now. */
  from: readonly ExecutionStatus[];
  /** A worker's write: only while the run is its attempt. */
  attempt?: number;
}

/** A worker's own end: the events it has not written yet (with their numbers) and the terminal event's number. */
export interface RunTail {
  pending: SeqEvent[];
  terminalSeq: number;
  /** What the run's participants join to its finish (participants.ts `RunPart.atFinish`: the last call's charge). */
  parts?: StatementPart[];
}

/**
 * Moves an execution to a final state, appends the terminal event (carrying the execution),
 * frees its conversation and signals it, all in one transaction (`db` may be one already).
 * `run`: a worker's own end (its unwritten events, appended before the terminal one, and the
 * terminal event's number); anyone else's terminal event takes `event_seq + 1`. `extra` runs
 * inside the transaction, pipelined with the rest (messages of a succeeded run). When the
 * execution held a slot, its workspace's next queued run is announced. Null when the guard did
 * not hold. (A worker's usual end goes with the other ends of its process: finishes.ts.)
 */
export async function finish(
  db: Db,
  id: string,
  outcome: Outcome,
  guard: FinishGuard,
  extra?: (tx: Db, row: ExecutionRow) => Promise<unknown>,
  run?: RunTail,
): Promise<ExecutionRow | null> {
  let parts: StatementPart[] = [];
  const out = await transaction(db, async (tx): Promise<ExecutionRow | null | { row: ExecutionRow; sent: Promise<unknown> }> => {
    const [row] = await endUpdate(tx, id, outcome, guard, run);
    if (!row) return null;
    const end = endStatement(tx, row, outcome, run);
    parts = end.parts;
    // After the conversation was freed (by the statement, in order): the next queued turn of its
    // lines may run. The usual end (no `extra`, no schedule's line to hand on) is sent with the
    // hand-on and the COMMIT behind it, unawaited: one round trip instead of three, each of which
    // waited for a turn of a busy loop with the connection held (docs/executions.md, "The end of a run").
    if (!extra && row.scheduleId === null && endsPipelined(tx)) {
      const sent = sendInOrder(tx, endsInOrder(row, end.statement));
      sent.catch(() => {}); // awaited below, after the COMMIT; never unhandled meanwhile
      return { row, sent };
    }
    await endAwaited(tx, row, end.statement, extra);
    return row;
  });
  // A statement that failed made the COMMIT roll everything back: its error is the finish's.
  const row = out && 'sent' in out ? (await out.sent, out.row) : out;
  if (row) committed(parts);
  return row;
}

/** The conditional update of an end: the row it moved (none when the guard did not hold). */
export function endUpdate(tx: Db, id: string, outcome: Outcome, guard: FinishGuard, run?: RunTail): Promise<ExecutionRow[]> {
  const conditions = [eq(executions.id, id), inArray(executions.status, [...move(guard.from, outcome.status).from])];
  if (guard.attempt !== undefined) conditions.push(eq(executions.attempt, guard.attempt));
  return tx
    .update(executions)
    .set({
      status: outcome.status,
      completedAt: sql`now()`,
      eventSeq: run ? sql`${run.terminalSeq}::int` : sql`${executions.eventSeq} + 1`,
      ...(outcome.output !== undefined ? { output: outcome.output } : {}),
      ...(outcome.outputJson !== undefined ? { outputJson: sql`${JSON.stringify(outcome.outputJson)}::jsonb` } : {}),
      ...(outcome.steps ? { steps: outcome.steps } : {}),
      ...(outcome.usage ? { inputTokens: outcome.usage.inputTokens, outputTokens: outcome.usage.outputTokens } : {}),
      ...(outcome.error !== undefined ? { errorCode: outcome.error?.code ?? null, errorMessage: outcome.error?.message ?? null } : {}),
      ...(outcome.cached !== undefined ? { cached: outcome.cached } : {}),
      ...(outcome.model ? { model: outcome.model } : {}),
    })
    .where(and(...conditions))
    .returning();
}

/**
 * What an end writes once its update moved `row`: one statement (the events, the conversation
 * and its messages, the signals, and the participants' parts: the outbox event, the usage
 * record, the last call's charge), and those parts, to be told once it committed.
 */
export function endStatement(tx: Db, row: ExecutionRow, outcome: Outcome, run?: RunTail): { statement: SQL; parts: StatementPart[] } {
  const id = row.id;
  const view = executionView(row);
  const terminal = terminalEventType(outcome.status);
  const writes = [
    eventsInsert(id, [...(run?.pending ?? []), { seq: row.eventSeq, ...recordedEvent(terminal, { execution: view }) }]),
    // The conversation is freed, and counts the run's messages in the same statement: a
    // conversation's `messageCount` and `lastMessageAt` (what GET /v1/conversations shows) are
    // written with its messages, so a list page reads them from the conversation rows.
    // (startExecution counts the user message in the statement that creates or takes it.)
    tx
      .update(conversations)
      .set({
        activeExecutionId: null,
        updatedAt: sql`now()`,
        ...(outcome.messages?.length ? { messageCount: sql`${conversations.messageCount} + ${outcome.messages.length}`, lastMessageAt: sql`now()` } : {}),
      })
      .where(and(eq(conversations.id, row.conversationId), eq(conversations.activeExecutionId, id)))
      .getSQL(),
  ];
  if (outcome.messages?.length) writes.push(tx.insert(messages).values(outcome.messages).getSQL());
  const signals = [notifyCall(CHANNELS.executionEvents, { id, seq: row.eventSeq, final: true })];
  // A run that held a slot frees it: the workers are woken when its tenant has queued runs.
  if (row.startedAt) signals.push(queuedSignal(row));
  if (outcome.status === 'cancelled') signals.push(notifyCall(CHANNELS.cancel, id));
  // On the embedded database the statement also says whether a turn waits in the run's
  // conversation line, so that the hand-on is sent only then (`handOn`, lines.ts).
  if (isPglite(tx) && row.waitingTurn === null) signals.push(sql`${conversationTurnWaits(row.conversationId)} as ${sql.raw(TURN_WAITS)}`);
  const parts = [...momentParts('finished', row, view), ...(run?.parts ?? [])];
  return { statement: statementWith(writes, signals, parts), parts };
}

/** The column of an end's statement that says a turn waits in its conversation's line (embedded database only). */
const TURN_WAITS = 'turn_waits';

/**
 * Runs an end's statement (awaited), then the hand-on of its lines (lines.ts `handOn`). On the
 * embedded database the statement said whether a turn waits in the conversation's line: read in
 * the statement that frees the conversation, with nothing between them (one caller at a time),
 * it is exact, and a turn that comes after finds the conversation free and takes it. Elsewhere
 * (PostgreSQL) a turn may join the line between that statement's snapshot and its commit, so the
 * hand-on is always sent there.
 */
export async function endAwaited(tx: Db, row: ExecutionRow, statement: SQL, extra?: (tx: Db, row: ExecutionRow) => Promise<unknown>): Promise<void> {
  // Issued together, in this order (pipelined on a PostgreSQL transaction's connection).
  const [[result]] = await Promise.all([queryRows<Record<string, unknown>>(tx, statement), extra?.(tx, row)]);
  await handOn(tx, row, { conversation: result?.[TURN_WAITS] !== false });
}

/** An end's statement and, after it, the hand-on of its conversation's line (for a run no schedule started). */
export const endsInOrder = (row: ExecutionRow, statement: SQL): SQL[] => {
  const line = handOnStatement(row);
  return line ? [statement, line] : [statement];
};

/** Wakes the workers when the tenant has queued runs (one of its slots just freed): a signal of `writeAll`. */
export const queuedSignal = (t: { workspaceId: string; environment: string }) =>
  sql`case when exists (
        select 1 from executions where workspace_id = ${t.workspaceId} and environment = ${t.environment} and status = 'queued' and waiting_turn is null)
      then ${notifyCall(CHANNELS.work, 'executions')} end`;

/** Cancels a queued or running execution at once (its worker is signalled and aborts). */
export const cancel = (db: Db, id: string, extra?: (tx: Db) => Promise<unknown>) => finish(db, id, { status: 'cancelled' }, { from: ACTIVE_STATUSES }, extra);

/** Cancels every queued and running execution of an agent (the agent is being deleted); `db` may be a transaction. */
export async function cancelAgentExecutions(db: Db, agentId: string): Promise<{ id: string; from: string }[]> {
  const active = await db
    .select({ id: executions.id, status: executions.status })
    .from(executions)
    .where(and(eq(executions.agentId, agentId), inArray(executions.status, [...ACTIVE_STATUSES])));
  const cancelled: { id: string; from: string }[] = [];
  for (const { id, status } of active) if (await cancel(db, id)) cancelled.push({ id, from: status });
  return cancelled;
}

/**
 * Running executions whose worker stopped renewing its heartbeat become `failed` with
 * `worker_lost`: never `running` forever, and never sent to the model a second time.
 */
export async function failLostExecutions(db: Db, clock = databaseClock): Promise<string[]> {
  const stale = await db
    .select({ id: executions.id, attempt: executions.attempt })
    .from(executions)
    .where(and(eq(executions.status, 'running'), lt(executions.heartbeatAt, sql`${clock.now()} - ${`${LOST_AFTER_MS} milliseconds`}::interval`)));
  const lost: string[] = [];
  for (const { id, attempt } of stale) {
    const row = await finish(
      db,
      id,
      { status: 'failed', error: { code: 'worker_lost', message: 'The worker running this execution stopped; it was not retried, to avoid calling the model twice.' } },
      { from: ['running'], attempt },
    );
    if (row) lost.push(id);
  }
  return lost;
}
