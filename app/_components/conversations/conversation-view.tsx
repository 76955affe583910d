'use client';

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { formatDateTime } from '@/app/_lib/dates';
import { hasErrorCode } from '@/app/_lib/errors';
import { formatCount } from '@/app/_lib/format';
import { useAgentNames } from '../agent-filter';
import { ConfirmDialog } from '../confirm-dialog';
import { MessageList } from '../executions/conversation-panel';
import { ExecutionList } from '../executions/execution-list';
import { isActive } from '../executions/status-badge';
import { IdText } from '../id-text';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { Breadcrumb, ChatIcon, EmptyState, ListFooter, LoadError, PageSkeleton } from '../states';
import { useCan } from '../team/use-can';
import { Button, ButtonLink, Card, Spinner } from '../ui';

// One conversation's page (issue 44, item 6): its messages in order, each linked to the execution
// that wrote it, and its executions (keyset pages, newest first). Delete, confirmed, for those
// whose role may (the server refuses a busy conversation: 409, said in the dialog). Another
// workspace's or environment's conversation is "not found" on the server: the page says so.

const RUNS_PAGE = 10;
/** While one of its executions is queued or running, how often the page reads it again. */
const LIVE_MS = 2_000;

function ConversationExecutions({ id }: { id: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const runs = useInfiniteQuery({
    queryKey: [...trpc.executions.list.pathKey(), 'pages', { conversationId: id }],
    queryFn: ({ pageParam, signal }) => client.executions.list.query({ conversationId: id, limit: RUNS_PAGE, ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.data.some((e) => isActive(e.status))) ? LIVE_MS : false),
  });
  const executions = runs.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card className="h-fit overflow-hidden" data-testid="conversation-executions-card">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="font-semibold text-slate-900">Executions</h2>
        <Link href={`/dashboard/executions?conversationId=${id}`} className="text-xs font-medium text-indigo-600 hover:text-indigo-500">
          In the executions list →
        </Link>
      </div>
      {runs.isPending ? (
        <div className="h-40 animate-pulse bg-slate-50" aria-busy="true" aria-label="Loading its executions" data-testid="conversation-executions-loading" />
      ) : runs.isError && executions.length === 0 ? (
        <LoadError what="Its executions" error={runs.error} onRetry={() => void runs.refetch()} testId="conversation-executions-error" />
      ) : executions.length === 0 ? (
        <p className="px-4 py-6 text-sm text-slate-600 sm:px-5">No executions.</p>
      ) : (
        <>
          <ExecutionList executions={executions} now={runs.dataUpdatedAt} testId="conversation-executions" />
          <ListFooter list={runs} />
        </>
      )}
    </Card>
  );
}

export function ConversationView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const can = useCan();
  const names = useAgentNames();
  const conversation = useQuery({ ...trpc.conversations.get.queryOptions({ id }), retry: (n, e) => !hasErrorCode(e, 'resource_not_found') && n < 2 });
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.conversations.delete.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.pathKey() });
        router.push('/dashboard/conversations');
      },
    }),
  );

  if (conversation.isPending) return <PageSkeleton label="Loading the conversation" testId="conversation-loading" />;
  if (conversation.isError) {
    const missing = hasErrorCode(conversation.error, 'resource_not_found');
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/conversations" parent="Conversations" current={id} />
        <Card>
          {missing ? (
            <EmptyState icon={<ChatIcon />} title="No such conversation here" action={<ButtonLink href="/dashboard/conversations">Back to conversations</ButtonLink>} testId="conversation-not-found">
              It may have been deleted, or belong to {environment === 'test' ? 'live' : 'test'} mode: conversations of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This conversation" error={conversation.error} onRetry={() => void conversation.refetch()} testId="conversation-error" />
          )}
        </Card>
      </div>
    );
  }

  const c = conversation.data;
  const agentName = names.get(c.agentId);
  const last = c.messages.at(-1)?.createdAt;
  return (
    <div className="space-y-6" data-testid="conversation-page" data-conversation-id={c.id}>
      <Breadcrumb href="/dashboard/conversations" parent="Conversations" current={c.id} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1.5">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Conversation</h1>
          <IdText value={c.id} testId="conversation-id" />
          <p className="text-sm text-slate-600">
            With{' '}
            <Link href={`/dashboard/agents/${c.agentId}`} className="font-medium text-indigo-600 hover:text-indigo-500" data-testid="conversation-agent">
              {agentName ?? c.agentId}
            </Link>{' '}
            · {formatCount(c.messages.length)} {c.messages.length === 1 ? 'message' : 'messages'} · started {formatDateTime(c.createdAt)}
            {last && <> · last message {formatDateTime(last)}</>}
            {conversation.isFetching && <Spinner className="ml-2 size-3 text-slate-400" />}
          </p>
        </div>
        {can.build && (
          <Button variant="dangerGhost" onClick={() => setConfirming(true)} data-testid="conversation-delete">
            Delete conversation
          </Button>
        )}
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="min-w-0 overflow-hidden lg:col-span-2" data-testid="conversation-messages-card">
          <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Messages</h2>
          {c.messages.length === 0 ? (
            <p className="px-4 py-6 text-sm text-slate-600 sm:px-5" data-testid="conversation-messages-empty">
              No messages yet: the first turn is still queued.
            </p>
          ) : (
            <MessageList messages={c.messages} />
          )}
        </Card>
        <ConversationExecutions id={c.id} />
      </div>

      {confirming && (
        <ConfirmDialog
          title="Delete this conversation?"
          label="Delete conversation"
          variant="danger"
          onClose={() => setConfirming(false)}
          onConfirm={() => remove.mutate({ id: c.id })}
          pending={remove.isPending}
          error={remove.error}
          testId="delete-conversation-dialog"
          confirmTestId="delete-conversation-confirm"
          errorTestId="delete-conversation-error"
        >
          <p>
            Its {formatCount(c.messages.length)} messages are deleted for good: a later execution cannot continue it. Its executions stay readable.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
