import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { queryRows } from '../../db/rows';
import { conversations, executionEvents, executions, type ExecutionStatus, type StoredStep } from '../../db/schema';
import { emit } from '../events/emit';
import type { ExecutionView } from './schemas';

// The one module that moves an execution through its states (DESIGN.md 6.2):
//   queued → running → succeeded | failed | cancelled, and queued → cancelled.
// Every transition is a conditional UPDATE on the status (and, for a worker's writes, on its
// `attempt`): a late worker changes 0 rows and its write is dropped, so `cancelled` and every
// final state stay as they are. A final transition also appends the terminal event, frees the
// conversation, writes the webhook event (the outbox) and signals the change, in one transaction.

export type ExecutionRow = typeof executions.$inferSelect;
export const FINAL: readonly ExecutionStatus[] = ['succeeded', 'failed', 'cancelled'];
export const ACTIVE: readonly ExecutionStatus[] = ['queued', 'running'];
export const isFinal = (status: ExecutionStatus) => FINAL.includes(status);

/** A worker stops renewing its heartbeat only when it died: this long without one is `worker_lost`. */
export const HEARTBEAT_MS = 5_000;
export const LOST_AFTER_MS = 25_000;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The execution as the API shows it. */
export function executionView(row: ExecutionRow): ExecutionView {
  return {
    id: row.id,
    agentId: row.agentId,
    conversationId: row.conversationId,
    status: row.status,
    input: row.input,
    output: row.output,
    steps: row.steps,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, totalTokens: row.inputTokens + row.outputTokens },
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    model: row.model,
    cached: row.cached,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    completedAt: iso(row.completedAt),
  };
}

// Payload `<id>:<seq>`, and `<id>:<seq>:final` for the terminal event (what `wait: true` waits for).
const notifyEvents = (id: string, seq: number, final = false) => sql`select pg_notify('aas_execution', ${`${id}:${seq}${final ? ':final' : ''}`})`;

/**
 * A worker takes a queued execution: `running`, attempt + 1, first heartbeat, and the
 * `execution.started` event. Null when it is not queued (cancelled meanwhile, or already taken).
 * `read` runs in the same transaction, pipelined with the event (the agent and the history the
 * run needs: one round trip for all of it).
 */
export async function claim<T>(db: Db, id: string, read: (tx: Db, row: ExecutionRow) => Promise<T>): Promise<{ row: ExecutionRow; read: T } | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(executions)
      .set({
        status: 'running',
        attempt: sql`${executions.attempt} + 1`,
        startedAt: sql`now()`,
        heartbeatAt: sql`now()`,
        eventSeq: sql`${executions.eventSeq} + 1`,
      })
      .where(and(eq(executions.id, id), eq(executions.status, 'queued')))
      .returning();
    if (!row) return null;
    const [, got] = await Promise.all([recordStarted(tx, row), read(tx, row)]);
    return { row, read: got };
  });
}

/** The values of an execution that starts running as it is created (no job: see `startExecution`). */
export const runningFromStart = { status: 'running', attempt: 1, startedAt: sql`now()`, heartbeatAt: sql`now()`, eventSeq: 1 } as const;

/** Appends a just-started execution's `execution.started` event and signals it (in the transaction that started it). */
export function recordStarted(tx: Db, row: ExecutionRow): Promise<unknown> {
  const view = executionView(row);
  return Promise.all([
    tx.insert(executionEvents).values({ executionId: row.id, seq: row.eventSeq, type: 'execution.started', data: { execution: view } }).execute(),
    tx.execute(notifyEvents(row.id, row.eventSeq)),
    emit(tx, row, 'execution.started', view),
  ]);
}

/** Renews the worker's heartbeat; false when the run is no longer its own (cancelled, or declared lost). */
export async function heartbeat(db: Db, id: string, attempt: number): Promise<boolean> {
  const rows = await db
    .update(executions)
    .set({ heartbeatAt: sql`now()` })
    .where(and(eq(executions.id, id), eq(executions.status, 'running'), eq(executions.attempt, attempt)))
    .returning({ id: executions.id });
  return rows.length > 0;
}

export interface RunEvent {
  type: 'text.delta' | 'tool.call' | 'tool.result';
  data: Record<string, unknown>;
}

/**
 * Appends events of a running execution in one statement (sequence numbers from the row's
 * counter, then one NOTIFY). False when the worker's attempt no longer owns the run: nothing is written.
 */
export async function appendEvents(db: Db, id: string, attempt: number, events: RunEvent[]): Promise<boolean> {
  if (events.length === 0) return true;
  const n = events.length;
  const rows = await queryRows<{ last: number }>(
    db,
    sql`with s as (
      update executions set event_seq = event_seq + ${n}::int
      where id = ${id} and status = 'running' and attempt = ${attempt}::int
      returning event_seq
    ), ins as (
      insert into execution_events (execution_id, seq, type, data)
      select ${id}, s.event_seq - ${n}::int + e.ord::int, e.value->>'type', e.value->'data'
      from s, json_array_elements(${JSON.stringify(events)}::json) with ordinality as e(value, ord)
      returning seq
    )
    select max(seq) as last, pg_notify('aas_execution', ${id} || ':' || max(seq)) from ins having max(seq) is not null`,
  );
  return rows.length > 0;
}

export interface Outcome {
  status: 'succeeded' | 'failed' | 'cancelled';
  output?: string | null;
  steps?: StoredStep[];
  usage?: { inputTokens: number; outputTokens: number };
  error?: { code: string; message: string } | null;
  cached?: boolean;
  model?: string;
}

export interface FinishGuard {
  /** The states the execution may be in now. */
  from: readonly ExecutionStatus[];
  /** A worker's write: only while the run is its attempt. */
  attempt?: number;
}

/**
 * Moves an execution to a final state, appends the terminal event (carrying the execution),
 * frees its conversation and signals it, all in one transaction (`db` may be one already).
 * `pending`: events of the run not written yet, appended before the terminal one. `extra` runs
 * inside the transaction, pipelined with the rest (messages of a succeeded run, the job's
 * completion). Null when the guard did not hold.
 */
export async function finish(
  db: Db,
  id: string,
  outcome: Outcome,
  guard: FinishGuard,
  extra?: (tx: Db, row: ExecutionRow) => Promise<unknown>,
  pending: RunEvent[] = [],
): Promise<ExecutionRow | null> {
  return db.transaction(async (tx) => {
    const conditions = [eq(executions.id, id), inArray(executions.status, [...guard.from])];
    if (guard.attempt !== undefined) conditions.push(eq(executions.attempt, guard.attempt));
    const [row] = await tx
      .update(executions)
      .set({
        status: outcome.status,
        completedAt: sql`now()`,
        eventSeq: sql`${executions.eventSeq} + ${pending.length + 1}::int`,
        ...(outcome.output !== undefined ? { output: outcome.output } : {}),
        ...(outcome.steps ? { steps: outcome.steps } : {}),
        ...(outcome.usage ? { inputTokens: outcome.usage.inputTokens, outputTokens: outcome.usage.outputTokens } : {}),
        ...(outcome.error !== undefined ? { errorCode: outcome.error?.code ?? null, errorMessage: outcome.error?.message ?? null } : {}),
        ...(outcome.cached !== undefined ? { cached: outcome.cached } : {}),
        ...(outcome.model ? { model: outcome.model } : {}),
      })
      .where(and(...conditions))
      .returning();
    if (!row) return null;
    const first = row.eventSeq - pending.length;
    const view = executionView(row);
    // Issued together: pipelined on the transaction's connection, run in this order.
    await Promise.all([
      tx
        .insert(executionEvents)
        .values([
          ...pending.map((e, i) => ({ executionId: id, seq: first + i, type: e.type, data: e.data })),
          { executionId: id, seq: row.eventSeq, type: `execution.${outcome.status}`, data: { execution: view } },
        ])
        .execute(),
      emit(tx, row, `execution.${outcome.status}`, view),
      tx
        .update(conversations)
        .set({ activeExecutionId: null, updatedAt: sql`now()` })
        .where(and(eq(conversations.id, row.conversationId), eq(conversations.activeExecutionId, id)))
        .execute(),
      extra?.(tx, row),
      tx.execute(notifyEvents(id, row.eventSeq, true)),
      outcome.status === 'cancelled' ? tx.execute(sql`select pg_notify('aas_cancel', ${id})`) : null,
    ]);
    return row;
  });
}

/** Cancels a queued or running execution at once (its worker is signalled and aborts). */
export const cancel = (db: Db, id: string) => finish(db, id, { status: 'cancelled' }, { from: ACTIVE });

/** Cancels every queued and running execution of an agent (the agent is being deleted); `db` may be a transaction. */
export async function cancelAgentExecutions(db: Db, agentId: string): Promise<number> {
  const active = await db
    .select({ id: executions.id })
    .from(executions)
    .where(and(eq(executions.agentId, agentId), inArray(executions.status, [...ACTIVE])));
  let n = 0;
  for (const { id } of active) if (await cancel(db, id)) n++;
  return n;
}

/**
 * Running executions whose worker stopped renewing its heartbeat become `failed` with
 * `worker_lost`: never `running` forever, and never sent to the model a second time.
 */
export async function failLostExecutions(db: Db): Promise<string[]> {
  const stale = await db
    .select({ id: executions.id, attempt: executions.attempt })
    .from(executions)
    .where(and(eq(executions.status, 'running'), lt(executions.heartbeatAt, sql`now() - ${`${LOST_AFTER_MS} milliseconds`}::interval`)));
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
