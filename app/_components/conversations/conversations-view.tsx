'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { formatCount } from '@/app/_lib/format';
import { AgentFilter, AgentName, useAgentNames } from '../agent-filter';
import { TableSkeleton } from '../agents/agents-table';
import { CARD_ROW, CardTable, CELL, LABEL, OpenCell } from '../card-table';
import { useTRPC, useTRPCClient } from '../providers';
import { ChatIcon, EmptyState, ListFooter, LoadError } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { When } from '../when';

// Every conversation of the workspace and environment (issue 44, item 6): the multi-turn threads
// the playground, the API (`conversationId`) and schedules continue, newest first, in keyset
// pages, filtered by agent (`?agentId=agt_…`). The list has no messages (the API's does not):
// each opens on its own page.

const PAGE_SIZE = 25;
const REFRESH_MS = 10_000;
const COLUMNS = ['Conversation', 'Agent', 'Messages', 'Last message', 'Started', ''];

type Summary = { id: string; agentId: string; messageCount: number; lastMessageAt: string; createdAt: string };

function ConversationRow({ conversation: c, names, now }: { conversation: Summary; names: ReadonlyMap<string, string>; now: number }) {
  return (
    <tr className={CARD_ROW} data-testid="conversation-row" data-conversation-id={c.id}>
      <td className={`${CELL} min-w-0 max-lg:col-span-2`}>
        <Link href={`/dashboard/conversations/${c.id}`} className="block truncate font-mono text-sm text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0" title={c.id}>
          {c.id}
        </Link>
      </td>
      <td className={`${CELL} min-w-0 text-slate-700`}>
        <span className={LABEL}>Agent</span>
        <AgentName id={c.agentId} names={names} />
      </td>
      <td className={`${CELL} text-slate-600 tabular-nums`}>
        <span className={LABEL}>Messages</span>
        <span data-testid="conversation-message-count">{formatCount(c.messageCount)}</span>
      </td>
      <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
        <span className={LABEL}>Last message</span>
        <When iso={c.lastMessageAt} now={now} />
      </td>
      <td className={`${CELL} text-slate-600 lg:whitespace-nowrap`}>
        <span className={LABEL}>Started</span>
        <When iso={c.createdAt} now={now} />
      </td>
      <OpenCell href={`/dashboard/conversations/${c.id}`} name={c.id} />
    </tr>
  );
}

export function ConversationsView({ initialAgentId }: { initialAgentId?: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const [agentId, setAgentId] = useState(initialAgentId);
  const names = useAgentNames();
  const list = useInfiniteQuery({
    queryKey: [...trpc.conversations.list.pathKey(), 'pages', { agentId }],
    queryFn: ({ pageParam, signal }) => client.conversations.list.query({ limit: PAGE_SIZE, ...(agentId ? { agentId } : {}), ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: REFRESH_MS,
  });
  const conversations = list.data?.pages.flatMap((p) => p.data) ?? [];

  function filter(next: string | undefined) {
    setAgentId(next);
    router.replace(`/dashboard/conversations${next ? `?agentId=${encodeURIComponent(next)}` : ''}`, { scroll: false });
  }

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Conversations</h1>
        <p className="mt-1 max-w-2xl text-sm text-slate-600">
          The threads your agents keep across runs — from the playground, the API (<code className="font-mono text-xs">conversationId</code>) and schedules — newest first.
        </p>
      </div>

      <div className="grid grid-cols-2 items-end gap-3 sm:flex sm:flex-wrap" role="group" aria-label="Filters">
        <div className="max-sm:col-span-2">
          <AgentFilter value={agentId} names={names} onChange={filter} />
        </div>
        {agentId && (
          <Button variant="ghost" className="max-sm:-ml-3.5 max-sm:justify-self-start" onClick={() => filter(undefined)} data-testid="clear-filters">
            Clear filter
          </Button>
        )}
        {list.isFetching && !list.isPending && <Spinner className="mb-2.5 text-slate-400 max-sm:hidden" />}
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading conversations" testId="conversations-loading" />
        ) : list.isError && conversations.length === 0 ? (
          <LoadError what="Conversations" error={list.error} onRetry={() => void list.refetch()} testId="conversations-error" />
        ) : conversations.length === 0 ? (
          agentId ? (
            <EmptyState icon={<ChatIcon />} title="No conversations with this agent" action={<Button variant="secondary" onClick={() => filter(undefined)}>Show every agent’s</Button>} testId="conversations-empty">
              Talk to it in its playground: each new chat is a conversation.
            </EmptyState>
          ) : (
            <EmptyState icon={<ChatIcon />} title="No conversations yet" action={<ButtonLink href="/dashboard/agents">Go to agents</ButtonLink>} testId="conversations-empty">
              Every execution starts a conversation, or continues the one whose <code className="font-mono text-xs">conversationId</code> it is given: run an agent and it shows up here.
            </EmptyState>
          )
        ) : (
          <>
            <CardTable columns={COLUMNS} testId="conversations-table">
              {conversations.map((c) => (
                <ConversationRow key={c.id} conversation={c} names={names} now={list.dataUpdatedAt} />
              ))}
            </CardTable>
            <ListFooter list={list} />
          </>
        )}
      </Card>
    </div>
  );
}
