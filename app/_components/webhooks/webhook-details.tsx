import type { ReactNode } from 'react';
import { EVENT_DESCRIPTIONS } from '@/app/_lib/event-types';
import { formatDate } from '@/app/_lib/format';
import type { Webhook } from '@/app/_lib/types';
import { Badge, Card } from '../ui';
import { disabledNote, WebhookStatusBadge } from './status';

// What the endpoint is: its URL, the events it receives, its state and identifiers, beside the log.

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-3 gap-3 px-4 py-3 sm:px-5" data-testid={testId}>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="col-span-2 min-w-0 text-sm break-words text-slate-800">{children}</dd>
    </div>
  );
}

const described = (type: string): string | undefined => (EVENT_DESCRIPTIONS as Record<string, string>)[type];

export function WebhookDetails({ webhook: w }: { webhook: Webhook }) {
  const note = disabledNote(w);
  return (
    <Card className="overflow-hidden" data-testid="webhook-details">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Details</h2>
      <dl className="divide-y divide-slate-100">
        <Row label="URL" testId="webhook-details-url">
          <code className="font-mono text-xs break-all">{w.url}</code>
        </Row>
        <Row label="Status">
          <WebhookStatusBadge webhook={w} />
          {!w.enabled && <span className="mt-1 block text-xs text-slate-500">{note ?? 'Paused by hand: nothing is sent until it is enabled.'}</span>}
        </Row>
        <Row label="Events" testId="webhook-details-events">
          {w.events.includes('*') ? (
            <>
              <Badge tone="indigo">All events</Badge>
              <span className="mt-1 block text-xs text-slate-500">Every type, including ones added later.</span>
            </>
          ) : (
            <ul className="space-y-1.5">
              {w.events.map((t) => (
                <li key={t}>
                  <code className="font-mono text-xs font-semibold">{t}</code>
                  {described(t) && <span className="block text-xs text-slate-500">{described(t)}</span>}
                </li>
              ))}
            </ul>
          )}
        </Row>
        <Row label="Description">{w.description ?? <span className="text-slate-500">None</span>}</Row>
        <Row label="Environment">
          <Badge tone={w.environment === 'test' ? 'amber' : 'green'}>{w.environment}</Badge>
        </Row>
        <Row label="ID">
          <code className="font-mono text-xs break-all" data-testid="webhook-id">
            {w.id}
          </code>
        </Row>
        <Row label="Created">{formatDate(w.createdAt)}</Row>
        <Row label="Updated">{formatDate(w.updatedAt)}</Row>
      </dl>
    </Card>
  );
}
