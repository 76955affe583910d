'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo } from 'react';
import { IdText } from '../id-text';
import { useEnvironment, useTRPC } from '../providers';
import { ApprovalIcon, EmptyState, LoadError } from '../states';
import { ButtonLink, Card } from '../ui';
import { useClock } from '../use-clock';
import { PendingCall } from './pending-call';
import { PAUSED_LIMIT, usePendingApprovals, type PendingItem } from './use-pending-approvals';

// Every tool call awaiting a person's decision in this environment (docs/approvals.md), the most
// urgent first, each with its agent, its execution and its answers. New ones appear while the
// page is open (it asks every few seconds), decided ones go.

/** How often the page reads the paused executions again. */
const POLL_MS = 2_500;

function Context({ item, agentName }: { item: PendingItem; agentName: string | undefined }) {
  const { execution: e } = item;
  return (
    <div className="min-w-0 space-y-1.5 text-xs text-slate-600">
      <p className="flex min-w-0 flex-wrap items-center gap-x-4 gap-y-1">
        <span className="min-w-0" data-testid="pending-call-agent">
          <span className="text-slate-500">Agent </span>
          <Link href={`/dashboard/agents/${e.agentId}`} className="font-medium break-all text-indigo-600 hover:text-indigo-500">
            {agentName ?? e.agentId}
          </Link>
        </span>
        <span className="flex min-w-0 items-center gap-1">
          <span className="shrink-0 text-slate-500">Execution</span>
          <IdText value={e.id} href={`/dashboard/executions/${e.id}`} testId="pending-call-execution" className="min-w-0" />
        </span>
      </p>
      <p className="line-clamp-2 break-words text-slate-700" title={e.input}>
        <span className="text-slate-500">Input </span>“{e.input}”
      </p>
    </div>
  );
}

function Skeleton() {
  return (
    <div className="space-y-4" aria-busy="true" aria-label="Loading approvals" data-testid="approvals-loading">
      {[0, 1].map((i) => (
        <Card key={i} className="h-48 animate-pulse" />
      ))}
    </div>
  );
}

export function ApprovalsView() {
  const trpc = useTRPC();
  const { environment } = useEnvironment();
  const { query, items, more } = usePendingApprovals(POLL_MS);
  const agents = useQuery({ ...trpc.agents.list.queryOptions({ limit: 100 }), staleTime: 60_000 });
  const agentNames = useMemo(() => new Map((agents.data?.data ?? []).map((a) => [a.id, a.name])), [agents.data]);
  const now = useClock(items.length > 0);

  return (
    <div className="space-y-6" data-testid="approvals-page">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Approvals</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Tool calls that wait for a person before they run, in {environment} mode: the run is paused until each is approved or denied. A call still undecided when its time runs out
            is denied as expired.
          </p>
        </div>
      </div>

      {query.isPending ? (
        <Skeleton />
      ) : query.isError && !query.data ? (
        <Card>
          <LoadError what="Approvals" error={query.error} onRetry={() => void query.refetch()} testId="approvals-error" />
        </Card>
      ) : items.length === 0 ? (
        <Card>
          <EmptyState icon={<ApprovalIcon />} title="Nothing awaits approval" action={<ButtonLink href="/dashboard/agents">Go to agents</ButtonLink>} testId="approvals-empty">
            When an agent calls a tool set to need approval (in the agent&apos;s tools), its run pauses and the call shows up here, live.
          </EmptyState>
        </Card>
      ) : (
        <>
          <p className="text-sm text-slate-600" data-testid="approvals-count">
            {items.length === 1 ? '1 call awaits' : `${items.length} calls await`} a decision{more ? ` (of the ${PAUSED_LIMIT} newest paused executions; decide these to see older ones)` : ''}.
          </p>
          <h2 className="sr-only">Calls awaiting approval</h2>
          <ul className="space-y-4" aria-label="Calls awaiting approval">
            {items.map((item) => (
              <li key={item.call.id} className="min-w-0">
                <PendingCall executionId={item.execution.id} call={item.call} now={now}>
                  <Context item={item} agentName={agentNames.get(item.execution.agentId)} />
                </PendingCall>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
