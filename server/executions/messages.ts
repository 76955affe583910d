import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { conversations, messages } from '../../db/schema';

// A conversation's messages are written with its `messageCount` and `lastMessageAt` (what
// GET /v1/conversations shows), in the writer's transaction: a list page then reads them from
// the conversation rows, whatever the conversations' lengths. The conversation is held by its
// one execution meanwhile (`activeExecutionId`), so nothing else updates its row at once.
// (startExecution counts the user message in the statement that creates or takes the
// conversation, which it issues anyway.)

type NewMessage = typeof messages.$inferInsert;

/** Appends messages to a conversation (`tx` is the writer's transaction; both statements pipelined). */
export function appendMessages(tx: Db, conversationId: string, rows: NewMessage[]): Promise<unknown> {
  return Promise.all([
    tx.insert(messages).values(rows).execute(),
    tx
      .update(conversations)
      // now(): the transaction's time, which the messages' createdAt defaults to as well.
      .set({ messageCount: sql`${conversations.messageCount} + ${rows.length}`, lastMessageAt: sql`now()` })
      .where(eq(conversations.id, conversationId))
      .execute(),
  ]);
}
