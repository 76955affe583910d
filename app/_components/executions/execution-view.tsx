'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { hasErrorCode } from '@/app/_lib/errors';
import { PendingCall } from '../approvals/pending-call';
import { AddToDatasetDialog } from '../datasets/add-to-dataset-dialog';
import { useEnvironment, useTRPC } from '../providers';
import { IdText } from '../id-text';
import { Breadcrumb, EmptyState, LoadError, PageSkeleton, RunIcon } from '../states';
import { Button, ButtonLink, Card, Spinner } from '../ui';
import { useCan } from '../team/use-can';
import { useClock } from '../use-clock';
import { CancelExecutionDialog } from './cancel-execution-dialog';
import { ConversationPanel } from './conversation-panel';
import { ExecutionFacts } from './execution-facts';
import { ExecutionSteps } from './execution-steps';
import { ReplayDialog } from './replay-dialog';
import { ReplayOf } from './replay-of';
import { ScoresCard } from './scores-card';
import { Section } from './section';
import { isActive, StatusBadge } from './status-badge';
import { TraceSection } from './trace-section';
import { useExecutionStream } from './use-execution-stream';

/** While it waits for a decision, how often the execution is read again (decided elsewhere, or expired). */
const PAUSED_POLL_MS = 3_000;
/** How long after it ended an unscored execution is read again for its scores, and how often. */
const SCORING_WAIT_MS = 60_000;
const SCORING_POLL_MS = 2_000;

/** "3 model calls", or a replay's "2 model calls · 1 step recorded". */
function stepsSummary(steps: number, recorded: number): string {
  const calls = steps - recorded;
  const made = calls === 1 ? '1 model call' : `${calls} model calls`;
  return recorded === 0 ? made : `${made} · ${recorded === 1 ? '1 step' : `${recorded} steps`} recorded`;
}

const TEXT = 'px-4 py-4 text-sm break-words whitespace-pre-wrap text-slate-800 sm:px-5';

export function ExecutionView({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const execution = useQuery({
    ...trpc.executions.get.queryOptions({ id }),
    refetchInterval: (query) => {
      const data = query.state.data;
      if (data?.status === 'requires_action') return PAUSED_POLL_MS;
      // Just ended and not scored yet: an online scoring rule (or an experiment's judge) may score it in a moment.
      if (data && !isActive(data.status) && data.scores === null && data.completedAt && Date.now() - Date.parse(data.completedAt) < SCORING_WAIT_MS) return SCORING_POLL_MS;
      return false;
    },
  });
  // While it runs, the page follows its events; at the end the lists and its conversation are read again.
  const live = useExecutionStream(execution.data, () => {
    void queryClient.invalidateQueries({ queryKey: trpc.executions.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.pathKey() });
  });
  const agentId = execution.data?.agentId;
  // The agent's name, when it still exists (a deleted agent's executions stay readable).
  const agent = useQuery({ ...trpc.agents.get.queryOptions({ id: agentId ?? '' }), enabled: agentId !== undefined, staleTime: 60_000, retry: false });
  const [cancelling, setCancelling] = useState(false);
  const [addingToDataset, setAddingToDataset] = useState(false);
  /** The step (0-based) the replay dialog starts from; null while it is closed. */
  const [replayFrom, setReplayFrom] = useState<number | null>(null);
  const can = useCan();
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
  const paused = e.status === 'requires_action';
  const awaited = e.requiredAction?.toolCalls ?? [];
  // A final execution can be replayed, by those who may run agents (the server checks again).
  const replayable = !active && can.build;
  /** A replay's steps taken from its original as recorded (no model call). */
  const recorded = Math.min(e.replayOf?.fromStep ?? 0, e.steps.length);
  return (
    <div className="space-y-6" data-testid="execution-page" data-status={e.status}>
      <Breadcrumb href="/dashboard/executions" parent="Executions" current={e.id} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight text-slate-900">
            Execution <StatusBadge status={e.status} className="text-sm" />
            {active && !paused && <Spinner className="size-4 text-indigo-500" />}
          </h1>
          <div className="mt-1 text-slate-500">
            <IdText value={e.id} testId="execution-id" />
          </div>
          {e.replayOf && <ReplayOf replayOf={e.replayOf} className="mt-1.5" testId="execution-replay-of" />}
        </div>
        <div className="flex flex-wrap gap-2">
          {!agent.isError && (
            <ButtonLink href={`/dashboard/agents/${e.agentId}`} variant="secondary" data-testid="execution-agent-link">
              Open agent
            </ButtonLink>
          )}
          {replayable && (
            <Button variant="secondary" onClick={() => setReplayFrom(0)} data-testid="replay-execution">
              Replay
            </Button>
          )}
          {/* An ended execution (succeeded, failed or cancelled) becomes a dataset's item: its input, and its answer as the one expected. */}
          {replayable && (
            <Button variant="secondary" onClick={() => setAddingToDataset(true)} data-testid="add-to-dataset">
              Add to dataset
            </Button>
          )}
          {active && can.build && (
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
          {paused && awaited.length > 0 && (
            <Section
              title="Awaiting approval"
              testId="execution-approvals"
              aside={<span className="text-xs text-slate-500">{awaited.length === 1 ? '1 tool call' : `${awaited.length} tool calls`}</span>}
            >
              <div className="space-y-3 bg-violet-50/40 px-4 py-4 sm:px-5">
                <p className="text-sm text-slate-600">The run is paused until each call is decided; then it goes on where it stopped.</p>
                {awaited.map((call) => (
                  <PendingCall key={call.id} executionId={e.id} call={call} now={Math.max(now, execution.dataUpdatedAt)} />
                ))}
              </div>
            </Section>
          )}
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
                {active && !paused && <Spinner className="size-3.5" />}
                {paused
                  ? 'Paused: the run goes on once its tool calls are approved or denied.'
                  : active
                    ? 'The answer appears here when the run ends.'
                    : `No output: the execution ${e.status === 'cancelled' ? 'was cancelled' : 'failed'}.`}
              </p>
            )}
          </Section>
          {e.scores && Object.keys(e.scores).length > 0 && <ScoresCard scores={e.scores} />}
          <Section title="Steps" testId="execution-steps" aside={<span className="text-xs text-slate-500">{stepsSummary(e.steps.length, recorded)}</span>}>
            <ExecutionSteps steps={e.steps} active={active} awaiting={new Set(awaited.map((c) => c.id))} recordedBefore={recorded} />
          </Section>
          <TraceSection execution={e} now={Math.max(now, execution.dataUpdatedAt)} onReplayFrom={replayable ? setReplayFrom : undefined} />
          <ConversationPanel conversationId={e.conversationId} executionId={e.id} />
        </div>
        <ExecutionFacts execution={e} agentName={agent.data?.name ?? null} agentGone={agent.isError} now={Math.max(now, execution.dataUpdatedAt)} />
      </div>

      {replayFrom !== null && replayable && <ReplayDialog key={replayFrom} execution={e} fromStep={replayFrom} onClose={() => setReplayFrom(null)} />}
      {addingToDataset && replayable && <AddToDatasetDialog execution={e} onClose={() => setAddingToDataset(false)} />}
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
