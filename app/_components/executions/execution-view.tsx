'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { apiErrorOf } from '@/app/_lib/errors';
import { useEnvironment, useTRPC } from '../providers';
import { Breadcrumb, EmptyState, LoadError, PageSkeleton, RunIcon } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { CancelExecutionDialog } from './cancel-execution-dialog';
import { ConversationPanel } from './conversation-panel';
import { ExecutionFacts } from './execution-facts';
import { ExecutionSteps } from './execution-steps';
import { isActive, StatusBadge } from './status-badge';

/** How often the page refreshes while the execution is queued or running. */
const LIVE_MS = 1_000;

function Section({ title, children, testId, aside }: { title: string; children: ReactNode; testId?: string; aside?: ReactNode }) {
  return (
    <Card className="overflow-hidden" data-testid={testId}>
      <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="font-semibold text-slate-900">{title}</h2>
        {aside}
      </div>
      {children}
    </Card>
  );
}

const TEXT = 'px-4 py-4 text-sm break-words whitespace-pre-wrap text-slate-800 sm:px-5';

export function ExecutionView({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const execution = useQuery({
    ...trpc.executions.get.queryOptions({ id }),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data.status) ? LIVE_MS : false),
  });
  const agentId = execution.data?.agentId;
  // The agent's name, when it still exists (a deleted agent's executions stay readable).
  const agent = useQuery({ ...trpc.agents.get.queryOptions({ id: agentId ?? '' }), enabled: agentId !== undefined, staleTime: 60_000, retry: false });
  const [cancelling, setCancelling] = useState(false);

  if (execution.isPending) {
    return <PageSkeleton label="Loading the execution" testId="execution-loading" />;
  }
  if (execution.isError) {
    const missing = apiErrorOf(execution.error)?.code === 'resource_not_found';
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/executions" parent="Executions" current={id} />
        <Card>
          {missing ? (
            <EmptyState icon={<RunIcon />} title="No such execution here" action={<ButtonLink href="/dashboard/executions">Back to executions</ButtonLink>} testId="execution-not-found">
              It may belong to {environment === 'test' ? 'live' : 'test'} mode: executions of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This execution" error={execution.error} onRetry={() => void execution.refetch()} testId="execution-error" />
          )}
        </Card>
      </div>
    );
  }

  const e = execution.data;
  const active = isActive(e.status);
  return (
    <div className="space-y-6" data-testid="execution-page" data-status={e.status}>
      <Breadcrumb href="/dashboard/executions" parent="Executions" current={e.id} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight text-slate-900">
            Execution <StatusBadge status={e.status} className="text-sm" />
            {active && <Spinner className="size-4 text-indigo-500" />}
          </h1>
          <code className="mt-1 block font-mono text-xs break-all text-slate-500" data-testid="execution-id">
            {e.id}
          </code>
        </div>
        <div className="flex flex-wrap gap-2">
          {!agent.isError && (
            <ButtonLink href={`/dashboard/agents/${e.agentId}`} variant="secondary" data-testid="execution-agent-link">
              Open agent
            </ButtonLink>
          )}
          {active && (
            <Button variant="danger" onClick={() => setCancelling(true)} data-testid="cancel-execution">
              Cancel
            </Button>
          )}
        </div>
      </div>

      {e.error && (
        <div className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800" role="alert" data-testid="execution-failure">
          <p className="font-semibold">
            Failed: <code className="font-mono">{e.error.code}</code>
          </p>
          <p className="mt-0.5 break-words">{e.error.message}</p>
        </div>
      )}

      <div className="grid items-start gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <Section title="Input" testId="execution-input">
            <p className={TEXT}>{e.input}</p>
          </Section>
          <Section title="Output" testId="execution-output">
            {e.output !== null ? (
              <p className={TEXT}>{e.output}</p>
            ) : (
              <p className="flex items-center gap-2 px-4 py-4 text-sm text-slate-500 sm:px-5">
                {active && <Spinner className="size-3.5" />}
                {active ? 'The answer appears here when the run ends.' : `No output: the execution ${e.status === 'cancelled' ? 'was cancelled' : 'failed'}.`}
              </p>
            )}
          </Section>
          <Section title="Steps" testId="execution-steps" aside={<span className="text-xs text-slate-500">{e.steps.length === 1 ? '1 model call' : `${e.steps.length} model calls`}</span>}>
            <ExecutionSteps steps={e.steps} active={active} />
          </Section>
          <ConversationPanel conversationId={e.conversationId} executionId={e.id} refreshing={active} />
        </div>
        <ExecutionFacts execution={e} agentName={agent.data?.name ?? null} agentGone={agent.isError} now={execution.dataUpdatedAt} />
      </div>

      {cancelling && (
        <CancelExecutionDialog
          execution={e}
          onClose={() => setCancelling(false)}
          onDone={() => {
            setCancelling(false);
            void queryClient.invalidateQueries({ queryKey: trpc.executions.pathKey() });
          }}
        />
      )}
    </div>
  );
}
