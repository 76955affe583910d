import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { transaction } from '../../../db/transaction';
import { executions, type ExecutionTrigger } from '../../../db/schema';
import type { ScheduleOverlap } from '../../../db/schema/values';
import type { Actor } from '../actor';
import { ApiError, type ErrorCode } from '../../platform/errors';
import { log } from '../../platform/log';
import { startRun, type Run } from './execute';
import { lineState, lockScheduleLine, MAX_WAITING_TURNS } from './lines';
import type { Live } from './live';
import type { ExecutionPool } from './pool';
import type { DecideInput, ExecuteInput, ExecutionView, ReplayInput } from './schemas';
import { planReplay } from './replay';
import { decideToolCalls } from './approvals';
import { cancelExecution, startExecution } from './service';
import { cancelAgentExecutions, executionView, type ExecutionRow } from './lifecycle';
import { ACTIVE_STATUSES } from '../vocabulary/statuses';
import type { TraceParent } from '../vocabulary/trace-ids';
import { followEvents, waitForFinal, watchFinal, type FollowEvent, type FollowOptions, type Watch } from './follow';
export { LONGEST_RUN_SECONDS, WAIT_GRACE_SECONDS } from './follow';

// The one face of executions (docs/executions.md, "The engine"): every other module and every
// edge starts, cancels, waits for and follows runs through this file, and reads them through
// service.ts. Two kinds of operation:
//   - a process's own (`createEngine`): a run in place in this process's slots, the events of its
//     runs from memory, waits woken by its notifications;
//   - in the caller's transaction (`enqueue`, `enqueueOccurrence`, `cancelAgentRuns`): queued
//     runs and cancels that need nothing of the process, written with the caller's other rows.
// Behind it, lifecycle.ts and pause.ts alone move `status` (each move checked against
// vocabulary/statuses.ts `TRANSITIONS`), and statuses.ts alone says which statuses are final.

type Scope = Pick<Actor, 'workspaceId' | 'environment'>;

export interface EngineDeps {
  db: Db;
  live: Live;
  /** This process's slots, when it runs workers (read at each start: the workers start after the engine). */
  pool: () => ExecutionPool | undefined;
}

export interface StartOptions {
  id?: string;
  /** Run in this process when it can (the caller follows the run at once: wait, stream, playground). */
  inPlace: boolean;
  trigger?: ExecutionTrigger;
  /** The API key that started it (budgets on a key count its runs: docs/budgets-plan.md). */
  keyId?: string;
  /** The caller's trace (a `traceparent` header): the run's root span is its span's child (docs/traces.md). */
  trace?: TraceParent | null;
}

export interface Engine {
  /** Creates an execution: in place when asked and possible, queued otherwise. */
  start(scope: Scope, agentId: string, input: ExecuteInput, opts: StartOptions): Promise<Run>;
  /**
   * Replays a final execution of the scope (docs/traces.md, "Replay"): a new execution of its
   * agent from `fromStep`, the steps before as recorded (404 unknown, 409 `execution_not_final`).
   */
  replay(scope: Scope, id: string, input: ReplayInput, opts: StartOptions): Promise<Run>;
  /** Cancels a queued or running execution of the scope (404 unknown, 409 `execution_not_cancellable` when final). */
  cancel(scope: Scope, id: string): Promise<ExecutionView>;
  /** A subscription to an execution's terminal event, opened before the execution exists (so `wait` misses nothing). */
  watch(executionId: string): Watch;
  /** The execution once final, or as it is when `timeoutMs` passed or `signal` aborted (the run goes on). */
  wait(executionId: string, opts: { timeoutMs: number; signal?: AbortSignal; watch?: Watch }): Promise<ExecutionRow>;
  /** An execution's events after `afterSeq`, live, until its terminal event or `signal` (the edge writes them: server/api/sse.ts). */
  /**
   * Until a running execution's process has written what it recorded so far (events, spans: a
   * trace read live), and writes promptly from then on; at most `timeoutMs`.
   */
  catchUp(executionId: string, timeoutMs?: number): Promise<void>;
  follow(opts: FollowOptions): AsyncIterable<FollowEvent>;
  /**
   * Decides tool calls a paused run awaits (docs/approvals.md); the run resumes when none is left.
   * Returns the execution as written and the sequence number its new events follow.
   */
  decide(actor: Actor, id: string, decisions: DecideInput['decisions']): Promise<{ row: ExecutionRow; afterSeq: number }>;
}

export function createEngine(deps: EngineDeps): Engine {
  const { db, live } = deps;
  return {
    start: (scope, agentId, input, opts) => startRun({ executions: deps.pool() }, db, scope, agentId, input, opts),
    replay: async (scope, id, input, opts) => {
      const { agentId, input: run, replay } = await planReplay(db, scope, id, input);
      return startRun({ executions: deps.pool() }, db, scope, agentId, run, { ...opts, replay });
    },
    cancel: (scope, id) => cancelExecution(db, scope, id),
    watch: (executionId) => watchFinal(live, executionId),
    wait: (executionId, opts) => waitForFinal(db, live, executionId, opts.timeoutMs, opts.signal, opts.watch),
    follow: (opts) => followEvents(db, live, opts),
    catchUp: (id, timeoutMs = 1_000) => live.catchUp(id, timeoutMs),
    decide: (actor, id, decisions) => decideToolCalls(db, actor, id, decisions),
  };
}

/**
 * A queued execution created in the caller's transaction (a schedule's "run now"): a worker's
 * fair claim starts it after the commit. Refusals are thrown as for `execute` (404, 409
 * `conversation_busy`, …) and roll the caller's transaction back.
 */
export async function enqueue(tx: Db, scope: Scope, agentId: string, input: ExecuteInput, opts: { trigger: ExecutionTrigger; keyId?: string; trace?: TraceParent | null }): Promise<ExecutionRow> {
  return (await startExecution(tx, scope, agentId, input, opts)).row;
}

/** A schedule's occurrence, as the ticker asks for it. */
export interface Occurrence {
  scheduleId: string;
  workspaceId: Scope['workspaceId'];
  environment: Scope['environment'];
  agentId: string;
  overlap: ScheduleOverlap;
  /** The conversation the schedule continues; null: a new one each run. */
  conversationId: string | null;
  /** The key that created the schedule: each occurrence is its run (budgets, usage); null: no key's. */
  keyId: string | null;
  input: ExecuteInput;
  trigger: ExecutionTrigger;
}

/**
 * Creates an occurrence's execution in the caller's transaction (in a savepoint: a refused start
 * leaves the rest of it whole), or says why it created none. While the schedule's previous run is
 * active, `skip` creates nothing and `enqueue` creates a queued turn (lines.ts): in the
 * conversation's line when the schedule continues one, else in the schedule's own line (under
 * its lock), at most MAX_WAITING_TURNS deep.
 */
export async function enqueueOccurrence(tx: Db, o: Occurrence): Promise<{ executionId: string } | { skipped: 'active' | 'line_full' | ErrorCode }> {
  let waiting: { on: 'schedule'; turn: number } | undefined;
  if (o.overlap === 'skip' || o.conversationId === null) {
    if (o.overlap === 'enqueue') await lockScheduleLine(tx, o.scheduleId);
    const [active] = await tx
      .select({ id: executions.id })
      .from(executions)
      .where(
        and(
          eq(executions.workspaceId, o.workspaceId),
          eq(executions.environment, o.environment),
          eq(executions.scheduleId, o.scheduleId),
          inArray(executions.status, [...ACTIVE_STATUSES]),
        ),
      )
      .limit(1);
    if (active && o.overlap === 'skip') return { skipped: 'active' };
    if (active) {
      const line = await lineState(tx, { on: 'schedule', id: o.scheduleId });
      if (line.waiting >= MAX_WAITING_TURNS) {
        log.warn({ schedule: o.scheduleId }, `a schedule’s occurrence was skipped: ${MAX_WAITING_TURNS} of its runs already wait`);
        return { skipped: 'line_full' };
      }
      waiting = { on: 'schedule', turn: line.nextTurn };
    }
  }
  try {
    const { row } = await transaction(tx, (sp) =>
      startExecution(sp, { workspaceId: o.workspaceId, environment: o.environment }, o.agentId, o.input, { trigger: o.trigger, ...(o.keyId ? { keyId: o.keyId } : {}), ...(waiting ? { waiting } : {}) }),
    );
    return { executionId: row.id };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    log.warn({ schedule: o.scheduleId, code: err.code }, 'a schedule’s occurrence created no execution');
    return { skipped: err.code };
  }
}

/** Cancels every queued, running and paused execution of an agent, in the agent's delete transaction; returns each one's id and the status it left. */
export const cancelAgentRuns = (tx: Db, agentId: string): Promise<{ id: string; from: string }[]> => cancelAgentExecutions(tx, agentId);

export { executionView };
export type { ExecutionRow, FollowEvent, FollowOptions, Run, Watch };
