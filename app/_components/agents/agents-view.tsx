'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { AgentIcon, EmptyState, ListFooter, LoadError } from '../states';
import { ButtonLink, Card } from '../ui';
import { AgentsTable, TableSkeleton } from './agents-table';
import { useCan } from '../team/use-can';

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

  // Agents are made by developers, admins and owners (docs/teams.md); viewers read them.
  const can = useCan();
  const newButton = (label: string) =>
    can.build && (
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
            <ListFooter list={list} />
          </>
        )}
      </Card>
    </div>
  );
}
