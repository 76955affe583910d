'use client';

import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import { formatDateTime, formatRelative } from '@/app/_lib/dates';
import { formatDuration } from '@/app/_lib/format';
import type { Delivery, DeliveryAttempt } from '@/app/_lib/types';
import { DisclosureButton } from '../disclosure';
import { JsonBlock } from '../executions/json-block';
import { useTRPC } from '../providers';
import { Badge, Button, Spinner } from '../ui';
import { When } from '../when';
import { DeliveryStatusBadge } from './status';

// One delivery of the log: a summary line (status, event, attempts, last answer, time) that
// opens to every attempt, with what the endpoint answered, and a "Resend" button.

const ok = (code: number | null) => code !== null && code >= 200 && code < 300;

export function StatusCode({ code }: { code: number | null }) {
  if (code === null) return <span className="text-slate-500">no response</span>;
  return <span className={ok(code) ? 'text-emerald-700' : 'text-red-700'}>HTTP {code}</span>;
}

function Attempt({ attempt: a }: { attempt: DeliveryAttempt }) {
  return (
    <li className="min-w-0 space-y-2 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="delivery-attempt">
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
        <span className="font-medium text-slate-900">Attempt {a.attempt}</span>
        <Badge tone={ok(a.statusCode) ? 'green' : 'red'} data-testid="attempt-status-code">
          {a.statusCode ?? 'No response'}
        </Badge>
        <span className="text-slate-600">{formatDuration(a.latencyMs)}</span>
        <When iso={a.at} seconds className="text-slate-500 sm:ml-auto" />
      </p>
      {a.error && <p className="text-xs break-words text-red-700" data-testid="attempt-error">{a.error}</p>}
      {a.responseExcerpt !== null && a.responseExcerpt !== '' && (
        <JsonBlock value={a.responseExcerpt} label="Response body (first 1 KB)" testId="attempt-response" />
      )}
    </li>
  );
}

/** When a pending delivery is tried next, relative and absolute: "Next attempt in 5 min (Jun 3, 2026, 10:32:04 CEST)". */
function nextAttemptNote(d: Pick<Delivery, 'status' | 'nextAttemptAt' | 'attempts'>, now: number): string | null {
  if (d.status !== 'pending') return null;
  const label = d.attempts.length === 0 ? 'First attempt' : 'Next attempt';
  if (!d.nextAttemptAt) return `${label} due now`;
  const wait = Date.parse(d.nextAttemptAt) - now;
  const when = wait <= 1_000 ? 'due now' : wait < 60_000 ? `in ${Math.ceil(wait / 1000)} s` : formatRelative(d.nextAttemptAt, now);
  return `${label} ${when} (${formatDateTime(d.nextAttemptAt, { seconds: true })})`;
}

export function DeliveryItem({
  delivery: d,
  now,
  open,
  onToggle,
  canResend,
  onResent,
}: {
  delivery: Delivery;
  now: number;
  open: boolean;
  onToggle: () => void;
  canResend: boolean;
  onResent: () => void;
}) {
  const trpc = useTRPC();
  const resend = useMutation(trpc.webhooks.resend.mutationOptions({ onSuccess: onResent }));
  const last = d.attempts.at(-1);
  const count = d.attempts.length;
  const panelId = `delivery-${d.id}`;
  const pending = nextAttemptNote(d, now);

  return (
    <li data-testid="delivery-row" data-delivery-id={d.id} data-status={d.status}>
      <DisclosureButton
        open={open}
        controls={panelId}
        onToggle={onToggle}
        className="flex w-full flex-wrap items-start gap-x-3 gap-y-1.5 px-4 py-3 text-left hover:bg-slate-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600 sm:flex-nowrap sm:px-5"
        testId="delivery-toggle"
      >
        <span className="min-w-0 flex-1">
          <span className="flex flex-wrap items-center gap-2">
            <DeliveryStatusBadge status={d.status} />
            <code className="font-mono text-sm font-medium break-all text-slate-900" data-testid="delivery-event-type">
              {d.eventType}
            </code>
          </span>
          <code className="mt-1 block truncate font-mono text-xs text-slate-500" data-testid="delivery-event-id">
            {d.eventId}
          </code>
          {pending && (
            <span className="mt-1 block text-xs text-indigo-700" data-testid="delivery-next-attempt">
              {pending}
            </span>
          )}
        </span>
        <span className="flex shrink-0 flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600 max-sm:basis-full max-sm:pl-6 sm:flex-col sm:items-end">
          <span className="flex gap-x-3 whitespace-nowrap">
            <span data-testid="delivery-status-code">{last ? <StatusCode code={last.statusCode} /> : <span className="text-slate-500">not sent yet</span>}</span>
            {last && <span data-testid="delivery-latency">{formatDuration(last.latencyMs)}</span>}
            <span data-testid="delivery-attempts">{count === 1 ? '1 attempt' : `${count} attempts`}</span>
          </span>
          <When iso={d.createdAt} now={now} className="whitespace-nowrap text-slate-500" />
        </span>
      </DisclosureButton>
      {open && (
        <div id={panelId} className="space-y-3 px-4 pb-4 sm:pr-5 sm:pl-11" data-testid="delivery-details">
          {count > 0 && (
            <ol className="space-y-2">
              {d.attempts.map((a) => (
                <Attempt key={a.attempt} attempt={a} />
              ))}
            </ol>
          )}
          <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
            <Button
              variant="secondary"
              onClick={() => resend.mutate({ id: d.webhookId, deliveryId: d.id })}
              disabled={!canResend || resend.isPending || d.status === 'pending'}
              data-testid="delivery-resend"
            >
              {resend.isPending && <Spinner />}
              Resend
            </Button>
            <span className="text-xs text-slate-500">
              {!canResend
                ? 'Enable the endpoint to resend.'
                : d.status === 'pending'
                  ? 'Already queued.'
                  : <>Sends the same event again, with the same <code className="font-mono">webhook-id</code>.</>}
            </span>
          </div>
          {resend.isError && (
            <p role="alert" className="text-xs text-red-600">
              {errorMessage(resend.error)}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
