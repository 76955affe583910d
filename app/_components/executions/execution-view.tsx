'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { hasErrorCode } from '@/app/_lib/errors';
import { followExecution, type ExecutionEvent } from '@/app/_lib/execution-stream';
import type { Execution } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';
import { IdText } from '../id-text';
import { Breadcrumb, EmptyState, LoadError, PageSkeleton, RunIcon } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { CancelExecutionDialog } from './cancel-execution-dialog';
import { ConversationPanel } from './conversation-panel';
import { ExecutionFacts } from './execution-facts';
import { ExecutionSteps } from './execution-steps';
import { isActive, StatusBadge } from './status-badge';

/** After the stream gave up on a run that is still active: wait this long before following it again. */
const RETRY_MS = 2_000;

/** What a running execution has said so far (its events since the page started following it). */
interface Live {
  text: string;
  tools: { id: string; name: string; done: boolean; isError: boolean }[];
}
const NOTHING: Live = { text: '', tools: [] };

function applyLive(live: Live, event: ExecutionEvent): Live {
  switch (event.type) {
    case 'text.delta':
      return { ...live, text: live.text + event.delta };
    case 'tool.call':
      return { ...live, tools: [...live.tools, { id: event.toolCallId, name: event.name, done: false, isError: false }] };
    case 'tool.result':
      return { ...live, tools: live.tools.map((t) => (t.id === event.toolCallId ? { ...t, done: true, isError: event.isError } : t)) };
    default:
      return live;
  }
}

/**
 * Follows a queued or running execution's event stream (no polling): the started and terminal
 * events carry the execution, which becomes the page's data; text and tool events show as they
 * happen. When the stream gives up before the end, the execution is read once, and followed
 * again while it is still active.
 */
function useExecutionStream(execution: Execution | undefined, onEnd: () => void): Live {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const [live, setLive] = useState<{ id: string; state: Live }>({ id: '', state: NOTHING });
  const [attempt, setAttempt] = useState(0);
  const id = execution?.id;
  const following = execution !== undefined && isActive(execution.status);

  useEffect(() => {
    if (!id || !following) return;
    const queryKey = trpc.executions.get.queryKey({ id });
    let retry: ReturnType<typeof setTimeout> | undefined;
    const stop = followExecution(id, environment, {
      event: (event) => {
        if ('execution' in event) {
          queryClient.setQueryData(queryKey, event.execution);
          if (event.type !== 'execution.started') onEnd();
          // Everything before the started event was the previous attempt's (none) or a replay: start afresh.
          if (event.type === 'execution.started') setLive({ id, state: NOTHING });
          return;
        }
        setLive((l) => ({ id, state: applyLive(l.id === id ? l.state : NOTHING, event) }));
      },
      closed: () => {
        void queryClient.refetchQueries({ queryKey, exact: true }).then(() => {
          const now = queryClient.getQueryData<Execution>(queryKey);
          if (now && isActive(now.status)) retry = setTimeout(() => setAttempt((n) => n + 1), RETRY_MS);
        });
      },
    });
    return () => {
      stop();
      clearTimeout(retry);
    };
    // `onEnd` is read when the run ends; a new one must not restart the stream.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, following, environment, attempt, queryClient, trpc]);

  return live.id === id ? live.state : NOTHING;
}

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

/** The time, once a second while `ticking` (how long a run has been going, without asking the server). */
function useClock(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

export function ExecutionView({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const execution = useQuery(trpc.executions.get.queryOptions({ id }));
  // While it runs, the page follows its events; at the end the lists and its conversation are read again.
  const live = useExecutionStream(execution.data, () => {
    void queryClient.invalidateQueries({ queryKey: trpc.executions.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.pathKey() });
  });
  const agentId = execution.data?.agentId;
  // The agent's name, when it still exists (a deleted agent's executions stay readable).
  const agent = useQuery({ ...trpc.agents.get.queryOptions({ id: agentId ?? '' }), enabled: agentId !== undefined, staleTime: 60_000, retry: false });
  const [cancelling, setCancelling] = useState(false);
  const now = useClock(execution.data !== undefined && isActive(execution.data.status));

  if (execution.isPending) {
    return <PageSkeleton label="Loading the execution" testId="execution-loading" />;
  }
  if (execution.isError) {
    const missing = hasErrorCode(execution.error, 'resource_not_found');
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
          <div className="mt-1 text-slate-500">
            <IdText value={e.id} testId="execution-id" />
          </div>
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
            ) : active && (live.text || live.tools.length > 0) ? (
              <div data-testid="execution-live-output" aria-live="polite">
                {live.tools.length > 0 && (
                  <ul className="space-y-1 border-b border-slate-100 px-4 py-3 text-xs text-slate-600 sm:px-5">
                    {live.tools.map((t) => (
                      <li key={t.id} className="flex items-center gap-2" data-testid="execution-live-tool">
                        {!t.done && <Spinner className="size-3 text-slate-400" />}
                        <span>
                          {t.done ? (t.isError ? 'Failed: ' : 'Called ') : 'Calling '}
                          <code className="font-mono font-semibold text-slate-900">{t.name}</code>
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
                {live.text && (
                  <p className={TEXT}>
                    {live.text}
                    <span aria-hidden className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-indigo-500 align-text-bottom" />
                  </p>
                )}
              </div>
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
          <ConversationPanel conversationId={e.conversationId} executionId={e.id} />
        </div>
        <ExecutionFacts execution={e} agentName={agent.data?.name ?? null} agentGone={agent.isError} now={Math.max(now, execution.dataUpdatedAt)} />
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
