import Link from 'next/link';
import type { ReactNode } from 'react';
import { durationBetween, formatCount, formatDuration, formatTime } from '@/app/_lib/format';
import type { Execution } from '@/app/_lib/types';
import { Badge, Card, MetadataList } from '../ui';

// The execution's facts beside its content: agent, model, usage, timings, metadata.

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-5 gap-3 px-4 py-2.5 sm:px-5" data-testid={testId}>
      <dt className="col-span-2 text-xs font-medium text-slate-500">{label}</dt>
      <dd className="col-span-3 min-w-0 text-sm break-words text-slate-800">{children}</dd>
    </div>
  );
}

const muted = (text: string) => <span className="text-slate-400">{text}</span>;

export function ExecutionFacts({ execution: e, agentName, agentGone, now }: { execution: Execution; agentName: string | null; agentGone: boolean; now: number }) {
  const waited = durationBetween(e.createdAt, e.startedAt ?? e.completedAt, now);
  const ran = durationBetween(e.startedAt, e.completedAt, now);
  const metadata = Object.entries(e.metadata);
  return (
    <Card className="overflow-hidden" data-testid="execution-facts">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Details</h2>
      <dl className="divide-y divide-slate-100">
        <Row label="Agent" testId="execution-agent">
          {agentGone ? (
            <>
              <code className="font-mono text-xs break-all">{e.agentId}</code>
              <span className="block text-xs text-slate-500">deleted</span>
            </>
          ) : (
            <Link href={`/dashboard/agents/${e.agentId}`} className="font-medium text-indigo-600 hover:text-indigo-500">
              {agentName ?? <code className="font-mono text-xs break-all">{e.agentId}</code>}
            </Link>
          )}
        </Row>
        <Row label="Conversation">
          <Link href={`/dashboard/executions?conversationId=${e.conversationId}`} className="font-mono text-xs break-all text-indigo-600 hover:text-indigo-500">
            {e.conversationId}
          </Link>
        </Row>
        <Row label="Started by" testId="execution-trigger">
          {e.trigger.type === 'schedule' ? (
            <>
              Schedule <code className="font-mono text-xs break-all">{e.trigger.scheduleId}</code>
              <span className="block text-xs text-slate-500">for {formatTime(e.trigger.scheduledFor)}</span>
            </>
          ) : (
            'API or dashboard'
          )}
        </Row>
        <Row label="Model" testId="execution-model">
          <code className="font-mono text-xs break-all">{e.model}</code>
        </Row>
        <Row label="Cached">{e.cached ? <Badge tone="indigo">cached answer</Badge> : 'No'}</Row>
        <Row label="Environment">
          <Badge tone={e.environment === 'test' ? 'amber' : 'green'}>{e.environment}</Badge>
        </Row>
        <Row label="Tokens" testId="execution-usage">
          {formatCount(e.usage.totalTokens)}
          <span className="block text-xs text-slate-500">
            {formatCount(e.usage.inputTokens)} in · {formatCount(e.usage.outputTokens)} out
          </span>
        </Row>
        <Row label="Created">{formatTime(e.createdAt)}</Row>
        <Row label="Started">
          {e.startedAt ? formatTime(e.startedAt) : muted('Not started')}
          {waited !== null && e.startedAt && <span className="block text-xs text-slate-500">after {formatDuration(waited)} in the queue</span>}
        </Row>
        <Row label="Completed">{e.completedAt ? formatTime(e.completedAt) : muted('Not yet')}</Row>
        <Row label="Duration" testId="execution-duration">
          {ran !== null ? formatDuration(ran) : muted('—')}
          {ran !== null && !e.completedAt && <span className="block text-xs text-slate-500">so far</span>}
        </Row>
        <Row label="Metadata">
          {metadata.length === 0 ? (
            muted('None')
          ) : (
            <MetadataList metadata={e.metadata} />
          )}
        </Row>
      </dl>
    </Card>
  );
}
