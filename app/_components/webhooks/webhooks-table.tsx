'use client';

import Link from 'next/link';
import { errorMessage } from '@/app/_lib/errors';
import type { Webhook } from '@/app/_lib/types';
import { CARD_ROW, CardTable, CELL, DateCell, LABEL, OpenCell } from '../card-table';
import { Button, Spinner } from '../ui';
import { disabledNote, EventBadges, WebhookStatusBadge } from './status';
import { useSetEnabled } from './use-set-enabled';

const COLUMNS = ['Endpoint', 'Events', 'Status', 'Created', ''];

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

// Below lg the rows become cards (see CardTable); the URL links to the webhook's page, and on a
// card the whole card is the link's target (the Enable button sits above it).
export function WebhooksTable({ webhooks }: { webhooks: Webhook[] }) {
  return (
    <CardTable columns={COLUMNS} testId="webhooks-table">
      {webhooks.map((w) => (
        <tr key={w.id} data-testid="webhook-row" data-webhook-id={w.id} className={CARD_ROW}>
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
          <DateCell label="Created" iso={w.createdAt} className="max-lg:justify-self-end max-lg:text-right" />
          <OpenCell href={`/dashboard/webhooks/${w.id}`} name={w.url} />
        </tr>
      ))}
    </CardTable>
  );
}
