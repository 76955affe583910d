'use client';

import Link from 'next/link';
import { errorMessage } from '@/app/_lib/errors';
import { formatDate, formatDay } from '@/app/_lib/format';
import type { Webhook } from '@/app/_lib/types';
import { Button, Spinner } from '../ui';
import { disabledNote, EventBadges, WebhookStatusBadge } from './status';
import { useSetEnabled } from './use-set-enabled';

const COLUMNS = ['Endpoint', 'Events', 'Status', 'Created', ''];

// Below lg the rows become cards (one DOM, restyled), like the keys table; the URL links to the
// webhook's page, and on a card the whole card is the link's target (the Enable button sits above it).
const CELL = 'px-4 py-3 max-lg:p-0';
const LABEL = 'block text-xs text-slate-500 lg:hidden';

function Status({ webhook }: { webhook: Webhook }) {
  const enable = useSetEnabled();
  const note = disabledNote(webhook);
  return (
    <div className="space-y-1.5">
      <WebhookStatusBadge webhook={webhook} />
      {note && (
        <p className="text-xs text-red-700 lg:max-w-52" data-testid="webhook-disabled-note">
          {note}
        </p>
      )}
      {!webhook.enabled && (
        <Button
          variant="secondary"
          className="relative z-10 px-2.5 py-1 text-xs"
          onClick={() => enable.mutate({ id: webhook.id, enabled: true })}
          disabled={enable.isPending}
          data-testid="webhook-enable"
          aria-label={`Enable ${webhook.url}`}
        >
          {enable.isPending && <Spinner className="size-3" />}
          Enable
        </Button>
      )}
      {enable.isError && (
        <p role="alert" className="text-xs text-red-600">
          {errorMessage(enable.error)}
        </p>
      )}
    </div>
  );
}

export function WebhooksTable({ webhooks }: { webhooks: Webhook[] }) {
  return (
    <div className="relative lg:overflow-x-auto">
      <table className="w-full text-sm max-lg:block lg:min-w-full lg:divide-y lg:divide-slate-200" data-testid="webhooks-table">
        <thead className="bg-slate-50 max-lg:hidden">
          <tr>
            {COLUMNS.map((c, i) => (
              <th key={i} scope="col" className="px-4 py-3 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase">
                {c || <span className="sr-only">Open</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white max-lg:block">
          {webhooks.map((w) => (
            <tr
              key={w.id}
              data-testid="webhook-row"
              data-webhook-id={w.id}
              className="relative align-top max-lg:grid max-lg:grid-cols-2 max-lg:gap-x-3 max-lg:gap-y-3 max-lg:p-4 max-lg:hover:bg-slate-50/60 lg:hover:bg-slate-50/60"
            >
              <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:max-w-md lg:min-w-64`}>
                <Link
                  href={`/dashboard/webhooks/${w.id}`}
                  className="font-mono text-[13px] font-medium break-all text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0"
                  data-testid="webhook-url"
                >
                  {w.url}
                </Link>
                {w.description && <p className="mt-0.5 line-clamp-2 text-xs break-words text-slate-500">{w.description}</p>}
              </td>
              <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:min-w-48`}>
                <span className={LABEL}>Events</span>
                <EventBadges events={w.events} max={2} />
              </td>
              <td className={`${CELL} min-w-0`}>
                <span className={LABEL}>Status</span>
                <Status webhook={w} />
              </td>
              <td className={`${CELL} text-slate-600 max-lg:justify-self-end max-lg:text-right lg:whitespace-nowrap`} title={formatDate(w.createdAt)}>
                <span className={LABEL}>Created</span>
                {formatDay(w.createdAt)}
              </td>
              <td className="px-4 py-3 text-right max-lg:hidden">
                <Link href={`/dashboard/webhooks/${w.id}`} className="text-sm font-semibold whitespace-nowrap text-indigo-600 hover:text-indigo-500" aria-label={`Open ${w.url}`}>
                  Open →
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
