'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { errorMessage, hasErrorCode } from '@/app/_lib/errors';
import type { Conversation } from '@/app/_lib/types';
import { MESSAGE_ROLE_WORDS } from '@/app/_lib/words';
import { IdText } from '../id-text';
import { useTRPC } from '../providers';
import { Badge, Card, Spinner } from '../ui';
import { When } from '../when';
import { JsonBlock } from './json-block';

const ROLE_TONE = { user: 'indigo', assistant: 'green', tool: 'slate' } as const;

/** A conversation's messages in order, each with its role, its time and its execution (`current`'s marked). */
export function MessageList({ messages, current, className }: { messages: Conversation['messages']; current?: string; className?: string }) {
  return (
    <ol className={`divide-y divide-slate-100 ${className ?? ''}`} data-testid="conversation-messages">
      {messages.map((m) => {
        const mine = m.executionId === current;
        return (
          <li key={m.id} className={`space-y-1.5 px-4 py-3 sm:px-5 ${mine ? 'bg-indigo-50/40' : ''}`} data-testid="conversation-message" data-role={m.role}>
            <div className="flex flex-wrap items-center gap-2 text-xs">
              <Badge tone={ROLE_TONE[m.role]}>{MESSAGE_ROLE_WORDS[m.role]}</Badge>
              {mine ? (
                <span className="text-slate-500">this execution</span>
              ) : (
                <IdText value={m.executionId} href={`/dashboard/executions/${m.executionId}`} copy={false} />
              )}
              <When iso={m.createdAt} className="text-slate-500 sm:ml-auto" />
            </div>
            {m.role === 'tool' ? (
              <JsonBlock value={m.content} label={m.toolCallId ? `Result of ${m.toolCallId}` : 'Result'} collapsible />
            ) : (
              m.content && <p className="text-sm break-words whitespace-pre-wrap text-slate-800">{m.content}</p>
            )}
            {m.toolCalls?.map((c) => (
              <p key={c.id} className="text-xs text-slate-600">
                ⚙ Called <code className="font-mono font-semibold">{c.name}</code>
              </p>
            ))}
          </li>
        );
      })}
    </ol>
  );
}

// The conversation an execution belongs to: every message in order, this execution's marked.
// A run's messages are written when it ends: the execution page reads it again then.
export function ConversationPanel({ conversationId, executionId }: { conversationId: string; executionId: string }) {
  const trpc = useTRPC();
  const conversation = useQuery(trpc.conversations.get.queryOptions({ id: conversationId }));
  const messages = conversation.data?.messages ?? [];

  return (
    <Card className="overflow-hidden" data-testid="conversation-panel">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="font-semibold text-slate-900">Conversation</h2>
        <Link href={`/dashboard/conversations/${conversationId}`} className="text-xs font-medium text-indigo-600 hover:text-indigo-500" data-testid="conversation-executions">
          The conversation and its executions →
        </Link>
      </div>
      {conversation.isPending ? (
        <p className="flex items-center gap-2 px-5 py-6 text-sm text-slate-500">
          <Spinner className="size-3.5" /> Loading messages…
        </p>
      ) : conversation.isError ? (
        <p className="px-5 py-6 text-sm text-slate-600">
          {hasErrorCode(conversation.error, 'resource_not_found') ? 'This conversation was deleted.' : errorMessage(conversation.error)}
        </p>
      ) : (
        <MessageList messages={messages} current={executionId} className="max-h-[32rem] overflow-y-auto" />
      )}
    </Card>
  );
}
