'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { describeCron } from '@/app/_lib/cron';
import { hasErrorCode } from '@/app/_lib/errors';
import { formatDateTime } from '@/app/_lib/dates';
import { durationBetween, formatCount, formatDuration } from '@/app/_lib/format';
import type { Execution } from '@/app/_lib/types';
import { DetailRow } from '../detail-row';
import { IdText } from '../id-text';
import { useTRPC } from '../providers';
import { Badge, Card, MetadataList } from '../ui';
import { executionHref, REPLAY_TOOLS_WORDS } from './replay-of';
import { experimentHref, scheduleHref, TRIGGER_LABELS, type Trigger } from './trigger';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

// The execution's facts beside its content: agent, model, usage, timings, metadata. Each id is
// one unbroken token (IdText), linked to where it is shown: the agent's page, its conversation's
// messages and executions, the schedule's own page.

const muted = (text: string) => <span className="text-slate-400">{text}</span>;
const note = (text: ReactNode) => <span className="block text-xs text-slate-500">{text}</span>;

/** A schedule's run: the schedule (linked while it exists), its cron in words, the occurrence. */
function ScheduleTrigger({ trigger, agentGone }: { trigger: Extract<Trigger, { type: 'schedule' }>; agentGone: boolean }) {
  const trpc = useTRPC();
  // Deleting an agent deletes its schedules: nothing to ask then.
  const schedule = useQuery({ ...trpc.schedules.get.queryOptions({ id: trigger.scheduleId }), enabled: !agentGone, retry: false, staleTime: 60_000 });
  const gone = agentGone || hasErrorCode(schedule.error, 'resource_not_found');
  const words = schedule.data ? describeCron(schedule.data.cron) : null;
  return (
    <>
      Schedule <IdText value={trigger.scheduleId} href={gone ? undefined : scheduleHref(trigger.scheduleId)} testId="execution-schedule-id" />
      {gone ? note('deleted') : words && note(words)}
      {note(`for ${formatDateTime(trigger.scheduledFor, { timeZone: schedule.data?.timezone })}`)}
    </>
  );
}

/** An experiment's item (the experiment, linked), or a judge's verdict on another run (that run, and its experiment when it is one's). */
function EvalTrigger({ trigger }: { trigger: Extract<Trigger, { type: 'experiment' | 'judge' }> }) {
  const experimentId = trigger.experimentId;
  return (
    <>
      {TRIGGER_LABELS[trigger.type]}
      {trigger.type === 'judge' && (
        <>
          {note('An LLM judge scoring the answer of')}
          <IdText value={trigger.executionId} href={executionHref(trigger.executionId)} testId="execution-judged-id" />
        </>
      )}
      {experimentId ? (
        <>
          {note(trigger.type === 'judge' ? 'for the experiment' : 'An item of the experiment')}
          <IdText value={experimentId} href={experimentHref(experimentId)} testId="execution-experiment-id" />
        </>
      ) : (
        trigger.type === 'judge' && note('for an online scoring rule')
      )}
    </>
  );
}

export function ExecutionFacts({ execution: e, agentName, agentGone, now }: { execution: Execution; agentName: string | null; agentGone: boolean; now: number }) {
  const waited = durationBetween(e.createdAt, e.startedAt ?? e.completedAt, now);
  const ran = durationBetween(e.startedAt, e.completedAt, now);
  const metadata = Object.entries(e.metadata);
  return (
    <Card className="overflow-hidden" data-testid="execution-facts">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Details</h2>
      <dl className="divide-y divide-slate-100">
        <DetailRow dense label="Agent" testId="execution-agent">
          {agentGone ? (
            <>
              <IdText value={e.agentId} testId="execution-agent-id" />
              {note('deleted')}
            </>
          ) : (
            <>
              {agentName && (
                <Link href={`/dashboard/agents/${e.agentId}`} className="block font-medium text-indigo-600 hover:text-indigo-500">
                  {agentName}
                </Link>
              )}
              <IdText value={e.agentId} href={`/dashboard/agents/${e.agentId}`} testId="execution-agent-id" />
            </>
          )}
        </DetailRow>
        <DetailRow dense label="Agent version" testId="execution-agent-version">
          {e.agentVersion === null ? (
            <>
              {muted('None')}
              {note('Started before the agent had versions')}
            </>
          ) : agentGone ? (
            <span data-testid="execution-version">v{e.agentVersion}</span>
          ) : (
            <>
              <Link href={`/dashboard/agents/${e.agentId}#version-${e.agentVersion}`} className="font-medium text-indigo-600 hover:text-indigo-500" data-testid="execution-version">
                v{e.agentVersion}
              </Link>
              {note('The version it ran, among the agent’s versions')}
            </>
          )}
        </DetailRow>
        <DetailRow dense label="Conversation">
          <IdText value={e.conversationId} href={`/dashboard/conversations/${e.conversationId}`} testId="execution-conversation-id" />
          {note('Its messages and executions')}
        </DetailRow>
        <DetailRow dense label="Started by" testId="execution-trigger">
          {e.trigger.type === 'schedule' ? (
            <ScheduleTrigger trigger={e.trigger} agentGone={agentGone} />
          ) : e.trigger.type === 'experiment' || e.trigger.type === 'judge' ? (
            <EvalTrigger trigger={e.trigger} />
          ) : (
            <>
              {TRIGGER_LABELS[e.trigger.type]}
              {note(e.trigger.type === 'playground' ? (e.replayOf ? 'A replay started in the dashboard' : 'A message sent in the playground') : 'A call of the REST API')}
            </>
          )}
        </DetailRow>
        {e.replayOf && (
          <DetailRow dense label="Replay of" testId="execution-facts-replay">
            <IdText value={e.replayOf.executionId} href={executionHref(e.replayOf.executionId)} testId="execution-facts-replay-id" />
            {note(`From step ${e.replayOf.fromStep + 1}, with ${REPLAY_TOOLS_WORDS[e.replayOf.tools]}${e.replayOf.tools === 'recorded' ? ': no tool called' : ''}`)}
          </DetailRow>
        )}
        <DetailRow dense label="Model" testId="execution-model">
          <code className="font-mono text-xs break-all">{e.model}</code>
        </DetailRow>
        <DetailRow dense label="Cached">{e.cached ? <Badge tone="indigo">Cached answer</Badge> : 'No'}</DetailRow>
        <DetailRow dense label="Environment">
          <Badge tone={e.environment === 'test' ? 'amber' : 'green'}>{ENVIRONMENT_WORDS[e.environment]}</Badge>
        </DetailRow>
        <DetailRow dense label="Tokens" testId="execution-usage">
          {formatCount(e.usage.totalTokens)}
          <span className="block text-xs text-slate-500">
            {formatCount(e.usage.inputTokens)} in · {formatCount(e.usage.outputTokens)} out
          </span>
        </DetailRow>
        <DetailRow dense label="Created">{formatDateTime(e.createdAt, { seconds: true })}</DetailRow>
        <DetailRow dense label="Started">
          {e.startedAt ? formatDateTime(e.startedAt, { seconds: true }) : muted('Not started')}
          {waited !== null && e.startedAt && <span className="block text-xs text-slate-500">after {formatDuration(waited)} in the queue</span>}
        </DetailRow>
        <DetailRow dense label="Completed">{e.completedAt ? formatDateTime(e.completedAt, { seconds: true }) : muted('Not yet')}</DetailRow>
        <DetailRow dense label="Duration" testId="execution-duration">
          {ran !== null ? formatDuration(ran) : muted('—')}
          {ran !== null && !e.completedAt && <span className="block text-xs text-slate-500">so far</span>}
        </DetailRow>
        <DetailRow dense label="Metadata">
          {metadata.length === 0 ? (
            muted('None')
          ) : (
            <MetadataList metadata={e.metadata} />
          )}
        </DetailRow>
      </dl>
    </Card>
  );
}
