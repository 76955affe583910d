import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatDateTime } from '@/app/_lib/dates';
import { formatCount, formatDuration } from '@/app/_lib/format';
import { attributeText, CONTENT_ATTRIBUTES, costOf, modelOf, parseContent, spanLabel, stepOf, tokensOf } from '@/app/_lib/trace';
import type { ExecutionStatus, ExecutionStep, Span } from '@/app/_lib/types';
import { formatUsd } from '@/app/_lib/usage';
import { EXECUTION_STATUS_WORDS, finishReasonWords } from '@/app/_lib/words';
import { DetailRow } from '../detail-row';
import { Badge, Button } from '../ui';
import { JsonBlock } from './json-block';
import { SpanContent } from './span-messages';

// The selected span of a trace: its status and error, timings, a model call's tokens, cost, first
// token and finish reason, a tool call's arguments and result, its attributes as key/value pairs,
// and the content the agent recorded (its `traceContent`): the messages a model call was sent and
// answered. `onReplayFrom`, when given, offers "Replay from here" on a model call (replay-dialog.tsx).

const SPAN_WORDS: Record<Span['name'], string> = {
  execution: 'The run',
  queue_wait: 'Wait in the queue',
  model_call: 'Model call',
  tool_call: 'Tool call',
  approval_wait: 'Wait for approval',
};

const muted = (text: string) => <span className="text-slate-400">{text}</span>;
const note = (text: ReactNode) => <span className="block text-xs text-slate-500">{text}</span>;
const content = (span: Span, key: (typeof CONTENT_ATTRIBUTES)[number]) => {
  const value = span.attributes[key];
  return typeof value === 'string' ? value : null;
};

/** A tool call's arguments and result as the run's steps hold them (recorded with every run, content or not). */
function stepCall(steps: readonly ExecutionStep[], toolCallId: string | undefined) {
  if (!toolCallId) return null;
  for (const step of steps) {
    const call = step.toolCalls.find((c) => c.id === toolCallId);
    if (call) return { call, result: step.toolResults.find((r) => r.id === toolCallId) ?? null };
  }
  return null;
}

function ModelFacts({ span }: { span: Span }) {
  const cost = costOf(span);
  const tokens = tokensOf(span);
  return (
    <>
      <DetailRow dense label="Model">
        <code className="font-mono text-xs break-all">{modelOf(span) ?? '—'}</code>
      </DetailRow>
      <DetailRow dense label="Tokens" testId="span-tokens">
        {tokens === null ? (
          muted('—')
        ) : (
          <>
            {formatCount(tokens)}
            {note(`${formatCount(span.usage!.inputTokens)} in · ${formatCount(span.usage!.outputTokens)} out`)}
          </>
        )}
      </DetailRow>
      <DetailRow dense label="Cost" testId="span-cost">
        {cost === undefined ? muted('—') : cost === null ? <>Unknown {note('The model has no price')}</> : formatUsd(cost)}
      </DetailRow>
      {span.name === 'model_call' && (
        <>
          <DetailRow dense label="First token" testId="span-first-token">
            {span.firstTokenMs != null ? formatDuration(span.firstTokenMs) : muted('—')}
          </DetailRow>
          <DetailRow dense label="Finish" testId="span-finish-reason">
            {span.finishReason ? (
              <>
                {finishReasonWords(span.finishReason)}
                {note(<code className="font-mono">{span.finishReason}</code>)}
              </>
            ) : (
              muted('—')
            )}
          </DetailRow>
        </>
      )}
    </>
  );
}

export function SpanDetails({
  span,
  traceStartMs,
  steps,
  agentId,
  onClose,
  onReplayFrom,
}: {
  span: Span;
  traceStartMs: number;
  steps: readonly ExecutionStep[];
  agentId: string;
  onClose: () => void;
  onReplayFrom?: (step: number) => void;
}) {
  const { title, detail } = spanLabel(span);
  const step = stepOf(span);
  const failed = span.status === 'error';
  const attributes = Object.entries(span.attributes).filter(([k]) => !(CONTENT_ATTRIBUTES as readonly string[]).includes(k));
  const system = content(span, 'gen_ai.system_instructions');
  const input = content(span, 'gen_ai.input.messages');
  const output = content(span, 'gen_ai.output.messages');
  const recorded = span.name === 'tool_call' ? stepCall(steps, span.toolCallId) : null;
  const runStatus = span.attributes['aas.execution.status'];

  return (
    <section className="space-y-4 border-t border-slate-200 bg-slate-50/60 px-4 py-4 sm:px-5" aria-label={`Span details: ${title}`} data-testid="span-details" data-span-name={span.name}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 className="flex min-w-0 flex-wrap items-center gap-2 font-semibold text-slate-900">
            <span className={span.name === 'tool_call' ? 'font-mono text-sm break-all' : 'break-words'}>{title}</span>
            <Badge tone={failed ? 'red' : 'green'} data-testid="span-status">
              {failed ? 'Error' : 'OK'}
            </Badge>
          </h3>
          <p className="mt-0.5 text-xs text-slate-500">
            {SPAN_WORDS[span.name]}
            {detail && ` · ${detail}`} · <code className="font-mono">{span.name}</code>
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {onReplayFrom && span.name === 'model_call' && step !== null && (
            <Button variant="secondary" onClick={() => onReplayFrom(step)} data-testid="replay-from-here">
              Replay from here
            </Button>
          )}
          <Button variant="ghost" onClick={onClose} data-testid="span-details-close">
            Close
          </Button>
        </div>
      </div>

      {span.error && (
        <div className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800" role="alert" data-testid="span-error">
          <p className="font-semibold">
            <code className="font-mono">{span.error.code}</code>
          </p>
          <p className="mt-0.5 break-words">{span.error.message}</p>
        </div>
      )}

      <dl className="divide-y divide-slate-100 rounded-lg bg-white ring-1 ring-slate-200 sm:grid sm:grid-cols-2 sm:divide-y-0 sm:[&>div]:border-b sm:[&>div]:border-slate-100">
        <DetailRow dense label="Started" testId="span-started">
          +{formatDuration(Date.parse(span.startedAt) - traceStartMs)}
          {note(formatDateTime(span.startedAt, { seconds: true }))}
        </DetailRow>
        <DetailRow dense label="Duration" testId="span-duration">
          {formatDuration(span.durationMs)}
        </DetailRow>
        {span.name === 'execution' && typeof runStatus === 'string' && (
          <DetailRow dense label="Run">{EXECUTION_STATUS_WORDS[runStatus as ExecutionStatus] ?? runStatus}</DetailRow>
        )}
        {(span.name === 'model_call' || span.name === 'execution') && <ModelFacts span={span} />}
        {span.name === 'tool_call' && (
          <>
            <DetailRow dense label="Tool">
              <code className="font-mono text-xs break-all">{span.tool ?? '—'}</code>
              {span.server && note(`MCP server ${span.server}`)}
            </DetailRow>
            {span.httpStatus !== undefined && <DetailRow dense label="HTTP status">{span.httpStatus}</DetailRow>}
            {span.toolCallId && (
              <DetailRow dense label="Call id">
                <code className="block truncate font-mono text-xs" title={span.toolCallId}>
                  {span.toolCallId}
                </code>
              </DetailRow>
            )}
          </>
        )}
        {step !== null && span.name !== 'model_call' && <DetailRow dense label="Step">{step + 1}</DetailRow>}
      </dl>

      {span.name === 'tool_call' && (
        <div className="grid gap-3" data-testid="span-tool-io">
          {input !== null ? (
            <SpanContent label="Arguments" text={input} testId="span-arguments" />
          ) : recorded ? (
            <JsonBlock value={recorded.call.arguments} label="Arguments" testId="span-arguments" />
          ) : null}
          {output !== null ? (
            <SpanContent label={failed ? 'Error result' : 'Result'} text={output} testId="span-result" tone={failed ? 'error' : 'default'} />
          ) : recorded?.result ? (
            <JsonBlock value={recorded.result.result} label={recorded.result.isError ? 'Error result' : 'Result'} tone={recorded.result.isError ? 'error' : 'default'} testId="span-result" />
          ) : null}
          {input === null && !recorded && <p className="text-xs text-slate-500">The run’s steps do not hold this call’s arguments.</p>}
        </div>
      )}

      {span.name === 'model_call' && (
        <div className="space-y-3" data-testid="span-content">
          {system !== null && (
            <div className="min-w-0 space-y-1.5" data-testid="span-instructions">
              <p className="text-xs font-medium text-slate-500">Instructions</p>
              <p className="rounded-md bg-white px-3 py-2 text-sm break-words whitespace-pre-wrap text-slate-800 ring-1 ring-slate-200">{String(parseContent(system).value)}</p>
            </div>
          )}
          {input !== null && <SpanContent label="Messages sent" text={input} testId="span-input-messages" />}
          {output !== null && <SpanContent label="Answer" text={output} testId="span-output-messages" />}
          {input === null && output === null && (
            <p className="text-xs text-slate-500" data-testid="span-no-content">
              Messages are not recorded for this agent’s runs: turn on “Record content in traces” in{' '}
              <Link href={`/dashboard/agents/${agentId}/edit`} className="font-medium text-indigo-600 hover:text-indigo-500">
                its settings
              </Link>{' '}
              to see them on the next runs.
            </p>
          )}
        </div>
      )}

      {span.links && span.links.length > 0 && (
        <div className="min-w-0 space-y-1.5" data-testid="span-links">
          <p className="text-xs font-medium text-slate-500">Linked spans {note('The requests that decided, by the trace context they sent')}</p>
          <ul className="space-y-1 rounded-md bg-white px-3 py-2 font-mono text-xs ring-1 ring-slate-200">
            {span.links.map((l) => (
              <li key={`${l.traceId}-${l.spanId}`} className="break-all text-slate-900">
                <span className="text-slate-500">trace</span> {l.traceId} <span className="text-slate-500">span</span> {l.spanId}
              </li>
            ))}
          </ul>
        </div>
      )}

      <div className="min-w-0 space-y-1.5">
        <p className="text-xs font-medium text-slate-500">Attributes</p>
        {attributes.length === 0 ? (
          <p className="text-xs text-slate-400">None</p>
        ) : (
          <dl className="grid gap-x-4 gap-y-1 rounded-md bg-white px-3 py-2 font-mono text-xs ring-1 ring-slate-200 sm:grid-cols-[max-content_minmax(0,1fr)]" data-testid="span-attributes">
            {attributes.map(([key, value]) => (
              <div key={key} className="contents" data-attribute={key}>
                <dt className="break-all text-slate-500">{key}</dt>
                <dd className="break-all text-slate-900 max-sm:mb-1">{attributeText(value)}</dd>
              </div>
            ))}
          </dl>
        )}
      </div>
    </section>
  );
}
