import { durationBetween, formatCount, formatDuration } from '@/app/_lib/format';
import type { ExecutionStep } from '@/app/_lib/types';
import { finishReasonWords } from '@/app/_lib/words';
import { DecisionNote } from '../approvals/decision-note';
import { Badge } from '../ui';
import { JsonBlock } from './json-block';

// Each model call of an execution: what it said, the tools it called with which arguments, how
// a call that needed approval was decided, and what they answered (folded JSON, so a long run
// stays readable).

function Step({ step, open, active, awaiting, recorded }: { step: ExecutionStep; open: boolean; active: boolean; awaiting: ReadonlySet<string>; recorded: boolean }) {
  const duration = durationBetween(step.startedAt, step.completedAt, Date.parse(step.completedAt));
  return (
    <details className="group" open={open} data-testid="execution-step" data-recorded={recorded || undefined}>
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-x-3 gap-y-1 px-4 py-3 select-none hover:bg-slate-50 sm:px-5 [&::-webkit-details-marker]:hidden">
        <span aria-hidden className="inline-block text-slate-400 transition-transform group-open:rotate-90">
          ▸
        </span>
        <span className="font-medium text-slate-900">Step {step.index + 1}</span>
        <Badge data-testid="step-finish-reason" data-reason={step.finishReason}>
          {finishReasonWords(step.finishReason)}
        </Badge>
        {step.toolCalls.length > 0 && <Badge tone="indigo">{step.toolCalls.length === 1 ? '1 tool call' : `${step.toolCalls.length} tool calls`}</Badge>}
        {recorded && (
          <Badge tone="amber" title="Taken from the replayed execution as recorded: no model or tool call, no cost" data-testid="step-recorded">
            Recorded
          </Badge>
        )}
        <span className="ml-auto text-xs text-slate-500">
          {formatCount(step.usage.totalTokens)} tokens{duration !== null && ` · ${formatDuration(duration)}`}
        </span>
      </summary>
      <div className="space-y-3 px-4 pb-4 sm:px-5">
        {step.text && <p className="text-sm break-words whitespace-pre-wrap text-slate-800">{step.text}</p>}
        {step.toolCalls.map((call) => {
          const result = step.toolResults.find((r) => r.id === call.id);
          return (
            <div key={call.id} className="space-y-2 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="execution-tool-call">
              <p className="flex flex-wrap items-center gap-2 text-xs text-slate-700">
                <span aria-hidden>⚙</span>
                <code className="font-mono font-semibold text-slate-900">{call.name}</code>
                <code className="truncate font-mono text-slate-400">{call.id}</code>
                {/* A denied call never ran: its result is the denial the model was told (the decision says so). */}
                {result && call.approval?.approved !== false && <Badge tone={result.isError ? 'red' : 'green'}>{result.isError ? 'Error' : 'Returned'}</Badge>}
                {!result && awaiting.has(call.id) && <Badge tone="violet">Awaiting approval</Badge>}
              </p>
              <JsonBlock value={call.arguments} label="Arguments" collapsible open />
              {call.approval && <DecisionNote decision={call.approval} modelArguments={call.arguments} />}
              {result ? (
                <JsonBlock value={result.result} label={result.isError ? 'Error' : call.approval?.approved === false ? 'Told the model' : 'Result'} collapsible open={result.isError} tone={result.isError ? 'error' : 'default'} />
              ) : awaiting.has(call.id) ? (
                <p className="text-xs text-slate-500">Runs once approved (see above).</p>
              ) : call.approval && active ? (
                <p className="text-xs text-slate-500">No result yet: the run goes on from this call.</p>
              ) : (
                <p className="text-xs text-slate-500">No result recorded.</p>
              )}
            </div>
          );
        })}
        {!step.text && step.toolCalls.length === 0 && <p className="text-sm text-slate-500">No text and no tool calls in this step.</p>}
      </div>
    </details>
  );
}

const NONE: ReadonlySet<string> = new Set();

/**
 * `awaiting`: the ids of the calls awaiting a decision (a paused run's). `recordedBefore`: a
 * replay's `fromStep`: the steps before it are the original's, as recorded (no model call).
 */
export function ExecutionSteps({
  steps,
  active,
  awaiting = NONE,
  recordedBefore = 0,
}: {
  steps: ExecutionStep[];
  active: boolean;
  awaiting?: ReadonlySet<string>;
  recordedBefore?: number;
}) {
  if (steps.length === 0) {
    return (
      <p className="px-4 py-6 text-center text-sm text-slate-500 sm:px-5">
        {active ? 'No completed steps yet: each one appears when its model call ends.' : 'No steps: the run ended before a model call completed.'}
      </p>
    );
  }
  return (
    <div className="divide-y divide-slate-100">
      {steps.map((s) => (
        <Step key={s.index} step={s} open={steps.length <= 3} active={active} awaiting={awaiting} recorded={s.index < recordedBefore} />
      ))}
    </div>
  );
}
