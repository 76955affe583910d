import { and, asc, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { agents, conversations, executions, messages } from '../../db/schema';
import type { Actor } from '../actor';
import { ApiError, notFound } from '../errors';
import { emit } from '../events/emit';
import { isId, newId } from '../ids';
import { keysetList } from '../keyset';
import type { Page, PageParams } from '../pagination';
import type { ConversationView, ExecuteInput, ExecutionView, MessageView } from './schemas';
import type { Started } from './runner';
import { lockTenant, mayStartNow } from './admission';
import { cancel, createdRunning, executionView, isFinal, recordStarted, type ExecutionRow } from './status';

// Executions and conversations as a caller sees them (DESIGN.md 6.2, 6.4): start one (the
// execution, its conversation's lock, the user message and the job are written in one
// transaction), list, read, cancel; read and delete conversations.

const executionList = keysetList({
  name: 'executions',
  prefix: 'exe',
  table: executions,
  columns: getTableColumns(executions),
  filters: { agentId: executions.agentId, status: executions.status, conversationId: executions.conversationId },
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

export type ListExecutionsInput = PageParams & { agentId?: string; status?: ExecutionRow['status']; conversationId?: string };

export async function listExecutions(db: Db, scope: Scope, input: ListExecutionsInput): Promise<Page<ExecutionView>> {
  const page = await executionList.page(db, scope, input);
  return { ...page, data: page.data.map((row) => executionView(row as ExecutionRow)) };
}

/** Queued or running → cancelled at once (a running worker is signalled and aborts); final → 409. */
export async function cancelExecution(db: Db, scope: Scope, id: string): Promise<ExecutionView> {
  const row = await findExecution(db, scope, id);
  if (!row) throw notFound('execution', id);
  const cancelled = isFinal(row.status) ? null : await cancel(db, id);
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
  actor: Actor,
  agentId: string,
  input: ExecuteInput,
  opts: { id?: string; inline?: boolean } = {},
): Promise<{ row: ExecutionRow; timeoutSeconds: number; started?: Started }> {
  const id = opts.id ?? newId('exe');
  const [agent] = isId('agt', agentId)
    ? await db
        .select()
        .from(agents)
        .where(and(eq(agents.id, agentId), ...owned(agents, actor), isNull(agents.deletedAt)))
    : [];
  if (!agent) throw notFound('agent', agentId);
  const row = await db.transaction(async (tx): Promise<{ row: ExecutionRow; started?: Started }> => {
    // Issued first, answered with the conversation's checks (one round trip).
    const admitted = opts.inline ? lockTenant(tx, actor).then(() => mayStartNow(tx, actor)) : Promise.resolve(false);
    let conversationId: string | undefined;
    if (input.conversationId !== undefined) {
      conversationId = input.conversationId;
      const [conversation] = isId('conv', conversationId)
        ? await tx
            .select({ agentId: conversations.agentId })
            .from(conversations)
            .where(and(eq(conversations.id, conversationId), ...owned(conversations, actor)))
        : [];
      if (!conversation) {
        throw new ApiError('resource_not_found', `No such conversation: '${conversationId.slice(0, 64)}'`, { param: 'conversationId' });
      }
      if (conversation.agentId !== agent.id) {
        throw new ApiError('invalid_parameter', 'This conversation belongs to another agent', { param: 'conversationId' });
      }
      const taken = await tx
        .update(conversations)
        .set({ activeExecutionId: id, updatedAt: new Date() })
        .where(and(eq(conversations.id, conversationId), isNull(conversations.activeExecutionId)))
        .returning({ id: conversations.id });
      if (taken.length === 0) {
        throw new ApiError('conversation_busy', 'This conversation already has a queued or running execution; wait for it to finish', {
          param: 'conversationId',
        });
      }
    }
    const running = await admitted;
    // One round trip for the rest: statements issued together are pipelined on the transaction's
    // connection and run in this order (the conversation before the rows that reference it).
    // (A drizzle query runs each time it is awaited: `.execute()` makes each one promise.)
    const writes: Promise<unknown>[] = [];
    if (input.conversationId === undefined) {
      conversationId = newId('conv');
      writes.push(tx.insert(conversations).values({ id: conversationId, workspaceId: actor.workspaceId, environment: actor.environment, agentId: agent.id, activeExecutionId: id }).execute());
    }
    const inserted = tx
      .insert(executions)
      .values({
        id,
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        agentId: agent.id,
        conversationId: conversationId!,
        status: 'queued',
        input: input.input,
        model: agent.model,
        metadata: input.metadata ?? {},
        ...(running ? createdRunning : {}),
      })
      .returning()
      .execute();
    writes.push(
      inserted,
      tx.insert(messages).values({
        id: newId('msg'),
        conversationId: conversationId!,
        executionId: id,
        role: 'user',
        content: input.input,
        modelMessage: { role: 'user', content: input.input },
      }).execute(),
    );
    const history = running ? conversationMessages(tx, conversationId!) : tx.execute(sql`select pg_notify('aas_jobs', 'executions')`).then(() => null);
    await Promise.all([...writes, history]);
    const [row] = await inserted;
    if (!running) return { row: row! };
    await recordStarted(tx, row!);
    return { row: row!, started: { row: row!, agent, history: (await history)! } };
  });
  return { ...row, timeoutSeconds: agent.timeoutSeconds };
}

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
  return db.transaction(async (tx) => {
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
    await emit(tx, gone, 'conversation.deleted', view);
    return { id, deleted: true as const };
  });
}
