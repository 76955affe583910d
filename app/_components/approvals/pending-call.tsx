'use client';

import { useState, type ReactNode } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { formatDateTime, formatRelative } from '@/app/_lib/dates';
import { formatTimeLeft } from '@/app/_lib/format';
import type { Execution } from '@/app/_lib/types';
import { JsonBlock } from '../executions/json-block';
import { Alert, Badge, Button, Spinner } from '../ui';
import { ArgumentsEditor } from './arguments-editor';
import { DenyDialog } from './deny-dialog';
import { useDecide, type AwaitedCall } from './use-decide';
import { useCan } from '../team/use-can';

// One tool call awaiting a person's decision, with its three answers: Approve, Approve with
// edited arguments, Deny (with a reason, after a confirmation). The same card on the Approvals
// page (with its agent and execution as `children`), the execution page and the playground.

/** Under this much time left, the expiry shows in amber. */
const SOON_MS = 5 * 60_000;

type Attempt = 'approve' | 'edit' | 'deny';

export function PendingCall({
  executionId,
  call,
  now,
  children,
  onDecided,
  onStale,
}: {
  executionId: string;
  call: AwaitedCall;
  /** The time (a ticking clock), for the time left. */
  now: number;
  /** What the call belongs to (its agent, its execution), under its name. */
  children?: ReactNode;
  onDecided?: (execution: Execution) => void;
  /** The call turned out decided elsewhere or the run no longer paused (the execution is read again). */
  onStale?: () => void;
}) {
  const can = useCan();
  const [mode, setMode] = useState<'buttons' | 'editing' | 'denying'>('buttons');
  const [attempt, setAttempt] = useState<Attempt | null>(null);
  const decide = useDecide(executionId, {
    decided: (execution) => {
      setMode('buttons');
      onDecided?.(execution);
    },
    stale: () => {
      setMode('buttons');
      onStale?.();
    },
  });
  const error = decide.error;
  const onArguments = attempt === 'edit' && /^decisions\.\d+\.arguments/.test(apiErrorOf(error)?.param ?? '');
  // A refused denial shows in its dialog while it is open; edited arguments the server refused, on their field.
  const cardError = error && !onArguments && !(attempt === 'deny' && mode === 'denying') ? error : null;
  const pending = decide.isPending;
  const decided = decide.isSuccess ? (decide.variables.decisions[0]?.approve ? 'Approved' : 'Denied') : null;

  const left = formatTimeLeft(call.expiresAt, now);
  const soon = Date.parse(call.expiresAt) - now < SOON_MS;

  function send(what: Attempt, decision: Parameters<typeof decide.decide>[1]) {
    setAttempt(what);
    decide.decide(call.id, decision);
  }

  return (
    <article className="min-w-0 space-y-3 rounded-lg bg-white p-4 shadow-sm ring-1 ring-violet-200" data-testid="pending-call" data-tool-call-id={call.id}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
        <h3 className="flex min-w-0 items-center gap-2 text-sm">
          <span aria-hidden className="text-slate-400">
            ⚙
          </span>
          <code className="font-mono font-semibold break-all text-slate-900" data-testid="pending-call-tool">
            {call.tool}
          </code>
        </h3>
        <Badge tone="violet">Awaiting approval</Badge>
        <p className="text-xs text-slate-500 sm:ml-auto">
          Requested{' '}
          <time dateTime={call.requestedAt} title={formatDateTime(call.requestedAt, { seconds: true })}>
            {formatRelative(call.requestedAt, now)}
          </time>
          {' · '}
          <span className={soon ? 'font-medium text-amber-700' : undefined} title={`Denied as expired if undecided at ${formatDateTime(call.expiresAt, { seconds: true })}`} data-testid="pending-call-expiry">
            {left ? `${left} left` : 'Expiring now'}
          </span>
        </p>
      </div>
      {children}
      {mode === 'editing' ? (
        <ArgumentsEditor
          initial={call.arguments}
          pending={pending}
          serverError={onArguments ? errorMessage(error) : null}
          onApprove={(args) => send('edit', { approve: true, arguments: args })}
          onEdit={() => decide.reset()}
          onCancel={() => {
            setMode('buttons');
            decide.reset();
          }}
        />
      ) : (
        <JsonBlock value={call.arguments} label="Arguments" testId="pending-call-arguments" />
      )}
      {cardError != null && <Alert data-testid="pending-call-error">{errorMessage(cardError)}</Alert>}
      {decided ? (
        <p className="flex items-center gap-2 text-sm text-slate-600" role="status" data-testid="pending-call-decided">
          <Spinner className="size-3.5 text-slate-400" />
          {decided}: the run goes on.
        </p>
      ) : (
        mode !== 'editing' &&
        (!can.build ? (
          <p className="text-sm text-slate-600" data-testid="pending-call-viewer">
            A developer, admin or owner decides on it: viewers read only.
          </p>
        ) : (
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => send('approve', { approve: true })} disabled={pending} data-testid="approve-call">
              {pending && attempt === 'approve' && <Spinner />}
              Approve
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                decide.reset();
                setMode('editing');
              }}
              disabled={pending}
              data-testid="edit-call"
            >
              Edit arguments
            </Button>
            <Button
              variant="dangerGhost"
              onClick={() => {
                decide.reset();
                setMode('denying');
              }}
              disabled={pending}
              data-testid="deny-call"
            >
              Deny…
            </Button>
          </div>
        ))
      )}
      {mode === 'denying' && (
        <DenyDialog
          tool={call.tool}
          pending={pending}
          error={attempt === 'deny' ? error : null}
          onClose={() => setMode('buttons')}
          onDeny={(reason) => send('deny', { approve: false, ...(reason ? { reason } : {}) })}
        />
      )}
    </article>
  );
}
