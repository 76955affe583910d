import { audit, emitAudited } from '../audit/record';
import { and, asc, eq, getTableColumns, isNull, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../../db/client';
import { alone, transaction } from '../../../db/transaction';
import { groupedTransaction } from '../../platform/grouped';
import { agents, conversations, executions, messages, type ExecutionTrigger } from '../../../db/schema';
import type { Actor } from '../actor';
import type { InitialStatus } from '../vocabulary/statuses';
import type { TraceParent } from '../vocabulary/trace-ids';
import { ApiError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { keysetList } from '../../platform/keyset';
import { CHANNELS, notifyCall } from '../../platform/notify';
import type { Page, PageParams } from '../../platform/pagination';
import type { ConversationSummaryView, ConversationView, ExecuteInput, ExecutionView, MessageView } from './schemas';
import type { Started } from './runner';
import { admissionCheck, lockTenant, mayStartNow, refusedAdmission } from './admission';
import { isPglite } from '../../../db/advisory';
import { lineState, MAX_WAITING_TURNS } from './lines';
import { cancel, executionView, isFinal, RESERVE, startedParts, type ExecutionRow } from './lifecycle';
import { startColumns, statementWith } from './participants';
import type { ReplayStart } from './replay';
import { versionToRun } from './versions';
import { checkOutputSchema } from '../vocabulary/output-schema';

// Executions and conversations as a caller sees them (docs/api.md, "Executions" and
// "Conversations"): start one (the execution, its conversation's lock, the user message and the job
// are written in one transaction), list, read, cancel; read and delete conversations.

const executionList = keysetList({
  name: 'executions',
  prefix: 'exe',
  table: executions,
  columns: getTableColumns(executions),
  filters: { agentId: executions.agentId, status: executions.status, conversationId: executions.conversationId, scheduleId: executions.scheduleId, agentVersion: executions.agentVersion },
});

type Scope = Pick<Actor, 'workspaceId' | 'environment'>;
/** The rows of the caller's workspace and environment (anything else is "not found"). */
const owned = (table: { workspaceId: PgColumn; environment: PgColumn }, scope: Scope) => [
  eq(table.workspaceId, scope.workspaceId),
  eq(table.environment, scope.environment),
];

export async function findExecution(db: Db, scope: Scope, id: string): Promise<ExecutionRow | null> {
  if (!isId('exe', id)) return null;
  const [row] = await db
    .select()
    .from(executions)
    .where(and(eq(executions.id, id), ...owned(executions, scope)));
  return row ?? null;
}

/** Whether the caller may see the execution, and where it stands (no input, output or steps: a stream needs only this). */
export async function findExecutionState(db: Db, scope: Scope, id: string): Promise<Pick<ExecutionRow, 'id' | 'status' | 'eventSeq'> | null> {
  if (!isId('exe', id)) return null;
  const [row] = await db
    .select({ id: executions.id, status: executions.status, eventSeq: executions.eventSeq })
    .from(executions)
    .where(and(eq(executions.id, id), ...owned(executions, scope)));
  return row ?? null;
}

export async function getExecution(db: Db, scope: Scope, id: string): Promise<ExecutionView> {
  const row = await findExecution(db, scope, id);
  if (!row) throw notFound('execution', id);
  return executionView(row);
}

export type ListExecutionsInput = PageParams & { agentId?: string; status?: ExecutionRow['status']; conversationId?: string; scheduleId?: string; agentVersion?: number };

export async function listExecutions(db: Db, scope: Scope, input: ListExecutionsInput): Promise<Page<ExecutionView>> {
  const page = await executionList.page(db, scope, input);
  return { ...page, data: page.data.map((row) => executionView(row as ExecutionRow)) };
}

/** Queued or running → cancelled at once (a running worker is signalled and aborts); final → 409. */
export async function cancelExecution(db: Db, scope: Scope, id: string): Promise<ExecutionView> {
  const row = await findExecution(db, scope, id);
  if (!row) throw notFound('execution', id);
  // The audit record commits with the cancel (docs/audit.md).
  const record = (tx: Db) => audit(tx, scope, { action: 'execution.cancelled', target: { type: 'execution', id }, changes: { status: [row.status, 'cancelled'] } });
  const cancelled = isFinal(row.status) ? null : await cancel(db, id, record);
  if (cancelled) return executionView(cancelled);
  const now = (await findExecution(db, scope, id))!;
  throw new ApiError('execution_not_cancellable', `This execution has already finished (status '${now.status}') and cannot be cancelled`);
}

/**
 * Starts an execution of an agent: a new conversation, or the given one if it belongs to this
 * agent and is idle (one execution at a time: 409 conversation_busy). Queued, it wakes the
 * workers (a NOTIFY delivered at the commit). `inline`: the caller holds a worker slot of this
 * process and runs it at once if its workspace may start one now (admission.ts: under its
 * concurrency limit, nothing of its own queued ahead): it is then created `running` with its
 * `execution.started` event, and `started` is what the run needs (a process that dies with it
 * leaves a running execution the sweeper fails as worker_lost, as for any worker). Otherwise it
 * is queued like any other.
 */
export async function startExecution(
  db: Db,
  actor: Scope,
  agentId: string,
  input: ExecuteInput,
  opts: { id?: string; inline?: boolean; trigger?: ExecutionTrigger; waiting?: { on: 'schedule'; turn: number }; keyId?: string; trace?: TraceParent | null; replay?: ReplayStart } = {},
): Promise<StartResult> {
  const id = opts.id ?? newId('exe');
  if (!isId('agt', agentId)) throw notFound('agent', agentId);
  // A replay starts a conversation of its own (the original's is never written: replay.ts).
  const continued = opts.replay ? undefined : input.conversationId;
  if (continued !== undefined && !isId('conv', continued)) throw noSuchConversation(continued);
  if (input.outputSchema !== undefined) checkOutputSchema(input.outputSchema);
  // On PostgreSQL a run in place is admitted optimistically: round trip 1 reads the decision
  // without the tenant's lock, and a run it admits sends the lock and the exact check right
  // before its writes (round trip 2, `admissionCheck`), the COMMIT behind them. On PGlite a
  // transaction holds the one connection alone: the decision read in round trip 1 is exact.
  const optimistic = opts.inline === true && !isPglite(db);
  // A queued start of a new conversation awaits each of its statements, leaves nothing behind,
  // refuses (404…) before its first write and takes no lock: on PostgreSQL it goes in one
  // transaction with the others of this process asked for meanwhile (platform/grouped.ts). Not a
  // turn of a line (a conversation's, a schedule's): its place is decided under a row lock, which
  // would not hold against its group's other members.
  const groups = opts.inline !== true && continued === undefined && opts.waiting === undefined;
  type Begun = StartResult | { deferred: Promise<StartResult>; check: Promise<unknown> };
  // On PGlite a start of a new conversation writes once, in one statement, after its read: it
  // holds the database for both without BEGIN and COMMIT (db/transaction.ts `alone`).
  const begin = (fn: (tx: Db) => Promise<Begun>) =>
    continued === undefined && isPglite(db) ? alone(db, fn) : groups ? groupedTransaction(db, actor.workspaceId, fn) : transaction(db, fn);
  const out = await begin(async (tx): Promise<Begun> => {
    // Round trip 1, pipelined: the conversation to continue (taken if it is this agent's and
    // idle), then the agent with the transaction's time and the admission decision (same
    // connection, in this order; the conversation's row lock is taken before the tenant's, which
    // on PostgreSQL comes in round trip 2, and on PGlite is not needed: db/advisory.ts).
    const conversationQ =
      continued === undefined
        ? null
        : Promise.all([
            tx.select({ agentId: conversations.agentId }).from(conversations).where(and(eq(conversations.id, continued), ...owned(conversations, actor))).execute(),
            tx
              .update(conversations)
              // The user message is written below (round trip 2): counted here, with the lock.
              .set(takenBy(id))
              .where(and(eq(conversations.id, continued), eq(conversations.agentId, agentId), isNull(conversations.activeExecutionId)))
              .returning({ id: conversations.id })
              .execute(),
          ]);
    // The participants' columns (participants.ts: a `block` budget that refuses the run, read
    // here so that a refusal writes nothing).
    const participants = startColumns({ ...actor, agentId, keyId: opts.keyId ?? null, inPlace: opts.inline === true, model: opts.replay ? sql`${opts.replay.model}` : sql`${agents.model}` });
    // The version to run (docs/versions.md), resolved with the agent: its config read only when it is not the latest.
    const version = versionToRun(input, continued, opts.replay?.version);
    const agentQ = tx
      .select({
        ...participants.columns,
        ...version.columns,
        agent: agents,
        // The time as epoch milliseconds: a number whatever the session's DateStyle or driver.
        now: sql<number>`(extract(epoch from now()::timestamptz(3)) * 1000)::float8`,
        admitted: opts.inline ? mayStartNow(actor) : sql<boolean>`false`,
      })
      .from(agents)
      .where(and(eq(agents.id, agentId), ...owned(agents, actor), isNull(agents.deletedAt)))
      .execute();
    const [[found], conversation] = await Promise.all([agentQ, conversationQ]);
    const admitted = found?.admitted === true;
    // (A throw rolls the transaction back, the conversation's lock with it.)
    if (!found) throw notFound('agent', agentId);
    const { agent, agentVersion } = version.read(found);
    const carried = participants.read(found);
    const now = new Date(Number(found.now));
    // A queued turn (lines.ts): it waits for the run ahead of it, and its user message is written when its turn comes.
    let waiting: { on: 'conversation' | 'schedule'; turn: number; ahead: number } | null = opts.waiting ? { ...opts.waiting, ahead: 1 } : null;
    if (conversation) {
      const [[owner], taken] = conversation;
      if (!owner) throw noSuchConversation(continued!);
      if (owner.agentId !== agent.id) throw new ApiError('invalid_parameter', 'This conversation belongs to another agent', { param: 'conversationId' });
      if (taken.length === 0) waiting = await joinLine(tx, continued!, id, input.ifBusy ?? 'reject');
    }
    // A turn that waits never starts in place (its slot goes back to the caller's pool).
    const running = admitted && !waiting;
    const conversationId = continued ?? newId('conv');
    const userMessage = { role: 'user', content: input.input };
    const row: ExecutionRow = {
      id,
      workspaceId: actor.workspaceId,
      environment: actor.environment,
      agentId: agent.id,
      conversationId,
      status: (running ? 'running' : 'queued') satisfies InitialStatus,
      agentVersion,
      outputSchema: input.outputSchema ?? null,
      outputJson: null,
      scores: null,
      input: input.input,
      output: null,
      steps: [],
      inputTokens: 0,
      outputTokens: 0,
      errorCode: null,
      errorMessage: null,
      model: opts.replay?.model ?? agent.model,
      cached: false,
      metadata: input.metadata ?? {},
      trigger: opts.trigger ?? { type: 'api' },
      scheduleId: opts.trigger?.type === 'schedule' ? opts.trigger.scheduleId : null,
      waitingTurn: waiting?.turn ?? null,
      waitingOn: waiting?.on ?? null,
      createdAt: now,
      startedAt: running ? now : null,
      completedAt: null,
      attempt: running ? 1 : 0,
      heartbeatAt: running ? now : null,
      eventSeq: running ? 1 + RESERVE : 0,
      approval: null,
      approvalDueAt: null,
      awaitedMs: 0,
      keyId: opts.keyId ?? null,
      // The caller's trace (`traceparent`), or null: its own, derived from its id (vocabulary/trace-ids.ts).
      traceId: opts.trace?.traceId ?? null,
      traceParentId: opts.trace?.parentId ?? null,
      replay: opts.replay?.plan ?? null,
    };
    // A replay's conversation holds what the original's model saw before its turn, then its own turn.
    const earlier = opts.replay?.history ?? [];
    // Round trip 2, one statement (db/rows.ts `writeAll`): the rows, and either the started event
    // with its outbox event, or the wake-up of the workers; with it, the history the run needs.
    const writes: SQL[] = [];
    const signals: SQL[] = [];
    if (continued === undefined) {
      writes.push(
        tx
          .insert(conversations)
          .values({ id: conversationId, workspaceId: actor.workspaceId, environment: actor.environment, agentId: agent.id, activeExecutionId: id, messageCount: 1 + earlier.length, lastMessageAt: sql`now()`, agentVersion })
          .getSQL(),
      );
      if (earlier.length > 0) writes.push(tx.insert(messages).values(earlier.map((m) => ({ ...m, id: newId('msg'), conversationId }))).getSQL());
    }
    writes.push(tx.insert(executions).values(row).getSQL());
    // A turn waiting in its conversation's line has its user message written when its turn comes.
    if (waiting?.on !== 'conversation') {
      writes.push(tx.insert(messages).values({ id: newId('msg'), conversationId, executionId: id, role: 'user', content: input.input, modelMessage: userMessage }).getSQL());
    }
    if (!running && !waiting) signals.push(notifyCall(CHANNELS.work, 'executions'));
    // Admitted without the lock: the lock and the exact check go out now, right before the writes.
    const lock = running && optimistic ? lockTenant(tx, actor) : null;
    const check = lock && admissionCheck(tx, actor);
    const written = tx.execute(statementWith(writes, signals, running ? startedParts(row) : [])).then((r) => r);
    if (!running) {
      await written;
      return { row, timeoutSeconds: agent.timeoutSeconds, ...(waiting ? { ahead: waiting.ahead } : {}) };
    }
    // A new conversation's history is the message just written: nothing to read back.
    const historyQ = continued === undefined ? Promise.resolve([...earlier, { modelMessage: userMessage }]) : conversationMessages(tx, conversationId);
    // (Already sent, in order: the lock and the check first when there are; awaited together.)
    const settled = Promise.all([historyQ, written, lock, check]).then(([history]) => ({ row, timeoutSeconds: agent.timeoutSeconds, started: { row, agent, history, carried } }));
    if (!check) return settled;
    // Not awaited here: the transaction's COMMIT goes out behind these statements (pipelined), and
    // the tenant's lock is held while the server does their work, not while this process's loop
    // gets round to answering them. (Handled now, awaited below: a rejection is never unhandled.)
    settled.catch(() => {});
    check.catch(() => {});
    return { deferred: settled, check };
  });
  if (!('deferred' in out)) return out;
  try {
    return await out.deferred;
  } catch (err) {
    // Another start took the tenant's last slot since round trip 1: nothing was written (the
    // COMMIT rolled back); the run is queued, as when the decision says no at once.
    if (await out.check.then(() => false, refusedAdmission)) return startExecution(db, actor, agentId, input, { ...opts, id, inline: false });
    throw err;
  }
}

/** A started execution: queued (a worker will run it), or running in place (`started`). */
interface StartResult {
  row: ExecutionRow;
  timeoutSeconds: number;
  started?: Started;
  ahead?: number;
}

/**
 * The conversation is busy: `reject` is 409 `conversation_busy`; `enqueue` takes a place in its
 * line (under its row's lock), unless MAX_WAITING_TURNS already wait — or the run ahead has just
 * ended, and the conversation is taken now (null: not waiting).
 */
async function joinLine(tx: Db, conversationId: string, id: string, ifBusy: 'reject' | 'enqueue'): Promise<{ on: 'conversation'; turn: number; ahead: number } | null> {
  const busy = (message: string) => new ApiError('conversation_busy', message, { param: 'conversationId' });
  if (ifBusy === 'reject') {
    throw busy('This conversation already has a queued or running execution; wait for it to finish, or send `ifBusy: "enqueue"` to run after it');
  }
  const [locked] = await tx.select({ active: conversations.activeExecutionId }).from(conversations).where(eq(conversations.id, conversationId)).for('update');
  if (locked && locked.active === null) {
    await tx.update(conversations).set(takenBy(id)).where(eq(conversations.id, conversationId));
    return null;
  }
  const line = await lineState(tx, { on: 'conversation', id: conversationId });
  if (line.waiting >= MAX_WAITING_TURNS) {
    throw busy(`This conversation already has ${MAX_WAITING_TURNS} turns waiting after its running execution, the most it may have; wait for one to finish`);
  }
  return { on: 'conversation', turn: line.nextTurn, ahead: line.waiting + 1 };
}

/** A conversation taken by execution `id`, counting its user message (written in the same transaction). */
const takenBy = (id: string) =>
  ({ activeExecutionId: id, updatedAt: sql`now()`, messageCount: sql`${conversations.messageCount} + 1`, lastMessageAt: sql`now()` }) as const;

const noSuchConversation = (id: string) => new ApiError('resource_not_found', `No such conversation: '${id.slice(0, 64)}'`, { param: 'conversationId' });

// ---- conversations ----

type MessageRow = typeof messages.$inferSelect;

function messageView(row: MessageRow): MessageView {
  const view: MessageView = { id: row.id, role: row.role, content: row.content, executionId: row.executionId, createdAt: row.createdAt.toISOString() };
  const model = row.modelMessage as { content?: unknown };
  if (row.role === 'assistant' && Array.isArray(model.content)) {
    const calls = (model.content as { type: string; toolCallId: string; toolName: string; input: unknown }[]).filter((p) => p.type === 'tool-call');
    if (calls.length > 0) view.toolCalls = calls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.input }));
  }
  if (row.role === 'tool' && Array.isArray(model.content)) {
    const result = (model.content as { type: string; toolCallId?: string }[]).find((p) => p.type === 'tool-result');
    if (result?.toolCallId) view.toolCallId = result.toolCallId;
  }
  return view;
}

/** The conversation's messages in order (what the model is sent back as history). */
export function conversationMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(asc(messages.id));
}

const conversationList = keysetList({
  name: 'conversations',
  prefix: 'conv',
  table: conversations,
  columns: {
    id: conversations.id,
    agentId: conversations.agentId,
    messageCount: conversations.messageCount,
    lastMessageAt: conversations.lastMessageAt,
    createdAt: conversations.createdAt,
    updatedAt: conversations.updatedAt,
  },
  filters: { agentId: conversations.agentId },
});

export async function listConversations(db: Db, scope: Scope, input: PageParams & { agentId?: string }): Promise<Page<ConversationSummaryView>> {
  const page = await conversationList.page(db, scope, input);
  return {
    ...page,
    data: page.data.map((row) => ({
      id: row.id,
      agentId: row.agentId,
      messageCount: row.messageCount,
      lastMessageAt: row.lastMessageAt.toISOString(),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    })),
  };
}

async function findConversation(db: Db, scope: Scope, id: string) {
  if (!isId('conv', id)) return null;
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), ...owned(conversations, scope)));
  return row ?? null;
}

export async function getConversation(db: Db, scope: Scope, id: string): Promise<ConversationView> {
  const row = await findConversation(db, scope, id);
  if (!row) throw notFound('conversation', id);
  const rows = await conversationMessages(db, id);
  return { id: row.id, agentId: row.agentId, messages: rows.map(messageView), createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

/** Deletes a conversation and its messages (with its `conversation.deleted` event); 409 while one of its executions is queued or running. */
export async function deleteConversation(db: Db, scope: Scope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await findConversation(db, scope, id);
  if (!row) throw notFound('conversation', id);
  return transaction(db, async (tx) => {
    const deleted = await tx
      .delete(conversations)
      .where(and(eq(conversations.id, id), isNull(conversations.activeExecutionId)))
      .returning();
    const gone = deleted[0];
    if (!gone) {
      throw new ApiError('conversation_busy', 'This conversation has a queued or running execution; cancel it or wait for it to finish');
    }
    // The conversation's view without its messages: deleting them must not keep a copy for 30 days.
    const view: ConversationView = { id, agentId: gone.agentId, messages: [], createdAt: gone.createdAt.toISOString(), updatedAt: gone.updatedAt.toISOString() };
    await emitAudited(tx, gone, 'conversation.deleted', view, scope, { action: 'conversation.deleted', target: { type: 'conversation', id }, changes: { agentId: [gone.agentId, null] } });
    return { id, deleted: true as const };
  });
}
