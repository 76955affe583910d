'use client';

import Link from 'next/link';
import type { Execution } from '@/app/_lib/types';
import { PendingCall } from '../approvals/pending-call';
import { JsonBlock } from '../executions/json-block';
import { StatusBadge } from '../executions/status-badge';
import { Badge, Spinner } from '../ui';
import { useClock } from '../use-clock';
import type { Part, PartDecision, Turn } from './use-playground';

// The playground's conversation: the user's messages on the right, each reply on the left as it
// streams (text, then any tool call and its result where it happened), with its status and a
// link to the execution. A turn paused for approval shows the calls it waits for, with their
// answers, where it stopped.

/** What a person answered to a call that needed approval. */
function DecisionBadge({ decision }: { decision: PartDecision }) {
  if (decision.approved) return <Badge tone="green">Approved</Badge>;
  return (
    <Badge tone={decision.expired ? 'amber' : 'red'} title={decision.reason ?? undefined}>
      {decision.expired ? 'Expired' : 'Denied'}
    </Badge>
  );
}

/** Callbacks of a paused turn's calls (the playground's own decisions, or one found already made). */
export interface PauseHandlers {
  onDecided: (key: number, execution: Execution) => void;
  onStale: (key: number, executionId: string) => void;
}

function PausedCalls({ turn, handlers }: { turn: Turn; handlers: PauseHandlers }) {
  const now = useClock(true);
  const executionId = turn.executionId!;
  return (
    <div className="space-y-2" data-testid="playground-paused">
      <p className="text-xs font-medium text-violet-700">Paused: the run goes on once {turn.awaiting.length === 1 ? 'this call is' : 'these calls are'} decided.</p>
      {turn.awaiting.map((call) => (
        <PendingCall
          key={call.id}
          executionId={executionId}
          call={call}
          now={now}
          onDecided={(execution) => handlers.onDecided(turn.key, execution)}
          onStale={() => handlers.onStale(turn.key, executionId)}
        />
      ))}
    </div>
  );
}

function ToolPart({ part, awaiting }: { part: Extract<Part, { kind: 'tool' }>; awaiting: boolean }) {
  const done = part.result !== undefined || part.isError !== undefined;
  return (
    <div className="space-y-2 rounded-md bg-slate-50 px-3 py-2 text-xs ring-1 ring-slate-200" data-testid="playground-tool">
      <p className="flex flex-wrap items-center gap-2 text-slate-700">
        <span aria-hidden>⚙</span>
        <span>
          Called <code className="font-mono font-semibold text-slate-900">{part.name}</code>
        </span>
        {part.decision && <DecisionBadge decision={part.decision} />}
        {awaiting ? (
          <Badge tone="violet">Awaiting approval</Badge>
        ) : !done ? (
          <Spinner className="size-3 text-slate-400" />
        ) : part.decision?.approved === false ? null : part.isError ? (
          <Badge tone="red">Error</Badge>
        ) : (
          <Badge tone="green">Returned</Badge>
        )}
      </p>
      <JsonBlock value={part.arguments} label="Arguments" collapsible />
      {done && <JsonBlock value={part.result} label={part.isError ? 'Error' : 'Result'} collapsible open={part.isError} tone={part.isError ? 'error' : 'default'} />}
    </div>
  );
}

function Reply({ turn, handlers }: { turn: Turn; handlers: PauseHandlers }) {
  const streaming = turn.status === 'running';
  const waiting = (turn.status === 'sending' || turn.status === 'queued') && turn.parts.length === 0;
  return (
    <div className="w-fit max-w-[90%] min-w-0 space-y-2 sm:max-w-[80%]">
      <div className="space-y-2 rounded-2xl rounded-tl-sm bg-white px-4 py-2.5 text-sm text-slate-900 shadow-sm ring-1 ring-slate-200" data-testid="playground-reply">
        {waiting && (
          <p className="flex items-center gap-2 text-slate-500">
            <Spinner className="size-3.5" /> {turn.status === 'sending' ? 'Sending…' : 'Queued…'}
          </p>
        )}
        {turn.parts.map((p, i) =>
          p.kind === 'text' ? (
            <p key={i} className="break-words whitespace-pre-wrap" data-testid="reply-text">
              {p.text}
              {streaming && i === turn.parts.length - 1 && <span aria-hidden className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-indigo-500 align-text-bottom" />}
            </p>
          ) : (
            <ToolPart key={p.id} part={p} awaiting={turn.awaiting.some((c) => c.id === p.id)} />
          ),
        )}
        {turn.status === 'requires_action' && turn.executionId && turn.awaiting.length > 0 && <PausedCalls turn={turn} handlers={handlers} />}
        {streaming && turn.parts.length === 0 && <p className="text-slate-500">Thinking…</p>}
        {turn.status === 'succeeded' && turn.parts.length === 0 && <p className="text-slate-500 italic">(empty answer)</p>}
        {turn.error && (
          <p className="rounded-md bg-red-50 px-2.5 py-1.5 text-xs text-red-800 ring-1 ring-red-200" role="alert" data-testid="playground-error">
            <code className="font-mono font-semibold">{turn.error.code}</code>: {turn.error.message}
          </p>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-1 text-xs text-slate-500">
        {turn.status !== 'sending' && turn.executionId && <StatusBadge status={turn.status} />}
        {turn.cached && <Badge>Cached</Badge>}
        {turn.executionId && (
          <Link href={`/dashboard/executions/${turn.executionId}`} className="font-medium text-indigo-600 hover:text-indigo-500" data-testid="playground-execution-link">
            View execution →
          </Link>
        )}
      </div>
    </div>
  );
}

export function Transcript({ turns, handlers }: { turns: Turn[]; handlers: PauseHandlers }) {
  return (
    <ol className="space-y-5" aria-label="Conversation">
      {turns.map((turn) => (
        <li key={turn.key} className="space-y-3" data-testid="playground-turn" data-status={turn.status}>
          <div className="flex justify-end">
            <p className="max-w-[90%] rounded-2xl rounded-tr-sm bg-indigo-600 px-4 py-2.5 text-sm break-words whitespace-pre-wrap text-white sm:max-w-[80%]" data-testid="playground-user">
              {turn.input}
            </p>
          </div>
          <Reply turn={turn} handlers={handlers} />
        </li>
      ))}
    </ol>
  );
}
