'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { isEnded } from '@/app/_lib/experiments';
import { useAgentNames } from '../agent-filter';
import { TableSkeleton } from '../agents/agents-table';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { EmptyState, ExperimentIcon, ListFooter, LoadError } from '../states';
import { useCan } from '../team/use-can';
import { Button, Card, Spinner } from '../ui';
import { ExperimentsTable } from './experiments-table';
import { NewExperimentDialog } from './new-experiment-dialog';
import { useDatasetNames } from './use-names';

// The environment's experiments (docs/evals.md, "Experiments"), newest first, in keyset pages;
// read again every few seconds while one of them is under way. Developers, admins and owners
// start new ones (viewers read): the new experiment opens on its own page, to follow it.

const PAGE_SIZE = 25;
const LIVE_POLL_MS = 2_000;

export function ExperimentsView({ initialCreating = false, initialDatasetId }: { initialCreating?: boolean; initialDatasetId?: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const testMode = environment === 'test';
  const can = useCan();
  const agentNames = useAgentNames();
  const datasetNames = useDatasetNames();
  const [creating, setCreating] = useState(initialCreating);

  const list = useInfiniteQuery({
    queryKey: [...trpc.experiments.list.pathKey(), 'pages'],
    queryFn: ({ pageParam, signal }) => client.experiments.list.query(pageParam ? { limit: PAGE_SIZE, after: pageParam } : { limit: PAGE_SIZE }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.data.some((e) => !isEnded(e.status))) ? LIVE_POLL_MS : false),
  });
  const experiments = list.data?.pages.flatMap((p) => p.data) ?? [];

  const newButton = (label: string) =>
    can.build && (
      <Button onClick={() => setCreating(true)} data-testid="create-experiment">
        <span aria-hidden>+</span> {label}
      </Button>
    );

  return (
    <div className="space-y-6" data-testid="experiments-page">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Experiments</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            An agent version run over a dataset, every answer scored. Started here or with <code className="font-mono text-xs">POST /v1/experiments</code>.{' '}
            {testMode ? 'You are viewing test experiments.' : 'You are viewing live experiments.'}
          </p>
        </div>
        <div className="flex items-center gap-2">
          {list.isFetching && !list.isPending && <Spinner className="text-slate-400" />}
          {experiments.length > 0 && newButton('New experiment')}
        </div>
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading experiments" testId="experiments-loading" />
        ) : list.isError && experiments.length === 0 ? (
          <LoadError what="Your experiments" error={list.error} onRetry={() => void list.refetch()} testId="experiments-error" />
        ) : experiments.length === 0 ? (
          <EmptyState
            icon={<ExperimentIcon />}
            tone={testMode ? 'amber' : 'indigo'}
            title={`No ${testMode ? 'test' : 'live'} experiments yet`}
            action={newButton('New experiment')}
            testId="experiments-empty"
          >
            An experiment runs every item of a dataset through one version of an agent and scores the answers; compare two to see whether a change made it
            better.
          </EmptyState>
        ) : (
          <>
            <ExperimentsTable experiments={experiments} agentNames={agentNames} datasetNames={datasetNames} />
            <ListFooter list={list} />
          </>
        )}
      </Card>

      {creating && can.build && (
        <NewExperimentDialog
          initialDatasetId={initialDatasetId}
          onClose={() => {
            setCreating(false);
            // Opened from a link (`?new=1`): the address forgets it, so a reload does not open it again.
            if (initialCreating) router.replace('/dashboard/experiments', { scroll: false });
          }}
          onCreated={(experiment) => {
            void queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
            router.push(`/dashboard/experiments/${experiment.id}`);
          }}
        />
      )}
    </div>
  );
}
