'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { AgentIcon, EmptyState, LoadError } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { AgentsTable, TableSkeleton } from './agents-table';

const PAGE_SIZE = 20;

export function AgentsView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const { environment } = useEnvironment();
  const testMode = environment === 'test';

  // Paged by `after` like the keys list; the key sits under agents.list so invalidating it refreshes.
  const list = useInfiniteQuery({
    queryKey: [...trpc.agents.list.pathKey(), 'pages'],
    queryFn: ({ pageParam, signal }) =>
      client.agents.list.query(pageParam ? { limit: PAGE_SIZE, after: pageParam } : { limit: PAGE_SIZE }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const agents = list.data?.pages.flatMap((p) => p.data) ?? [];

  const newButton = (label: string) => (
    <ButtonLink href="/dashboard/agents/new" data-testid="new-agent">
      <span aria-hidden>+</span> {label}
    </ButtonLink>
  );

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Agents</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            An agent is a model with instructions and HTTP tools. Run it here in the playground or with{' '}
            <code className="font-mono text-xs">POST /v1/agents/:id/execute</code>.{' '}
            {testMode ? 'You are viewing test agents: their runs use the sandbox model and are never charged.' : 'You are viewing live agents.'}
          </p>
        </div>
        {agents.length > 0 && newButton('New agent')}
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading agents" testId="agents-loading" />
        ) : list.isError && agents.length === 0 ? (
          <LoadError what="Your agents" error={list.error} onRetry={() => void list.refetch()} testId="agents-error" />
        ) : agents.length === 0 ? (
          <EmptyState
            icon={<AgentIcon />}
            tone={testMode ? 'amber' : 'indigo'}
            title={`No ${testMode ? 'test' : 'live'} agents yet`}
            action={newButton('Create your first agent')}
            testId="agents-empty"
          >
            {testMode
              ? 'Test agents run on the offline sandbox model: try the whole pipeline, tool calls included, for free.'
              : 'Give it a model, instructions and the HTTP tools it may call, then talk to it in the playground.'}
          </EmptyState>
        ) : (
          <>
            <AgentsTable agents={agents} />
            {list.hasNextPage && (
              <div className="flex justify-center border-t border-slate-100 px-4 py-3">
                <Button variant="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage} data-testid="load-more">
                  {list.isFetchingNextPage && <Spinner />}
                  Load more
                </Button>
              </div>
            )}
            {list.isError && (
              <p role="alert" className="px-4 pb-3 text-center text-sm text-red-600">
                {errorMessage(list.error)}
              </p>
            )}
          </>
        )}
      </Card>
    </div>
  );
}
