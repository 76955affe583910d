import { EVENT_DESCRIPTIONS } from '@/app/_lib/event-types';
import { formatDateTime } from '@/app/_lib/dates';
import type { Webhook } from '@/app/_lib/types';
import { DetailRow } from '../detail-row';
import { IdText } from '../id-text';
import { Badge, Card } from '../ui';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

// What the endpoint is: its URL, the events it receives and identifiers, beside the log (its
// state is the badge beside the page's title, said once).

const described = (type: string): string | undefined => (EVENT_DESCRIPTIONS as Record<string, string>)[type];

export function WebhookDetails({ webhook: w }: { webhook: Webhook }) {
  return (
    <Card className="overflow-hidden" data-testid="webhook-details">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Details</h2>
      <dl className="divide-y divide-slate-100">
        <DetailRow label="URL" testId="webhook-details-url">
          <code className="font-mono text-xs break-all">{w.url}</code>
        </DetailRow>
        <DetailRow label="Events" testId="webhook-details-events">
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
        </DetailRow>
        <DetailRow label="Description">{w.description ?? <span className="text-slate-500">None</span>}</DetailRow>
        <DetailRow label="Environment">
          <Badge tone={w.environment === 'test' ? 'amber' : 'green'}>{ENVIRONMENT_WORDS[w.environment]}</Badge>
        </DetailRow>
        <DetailRow label="ID">
          <IdText value={w.id} testId="webhook-id" />
        </DetailRow>
        <DetailRow label="Created">{formatDateTime(w.createdAt)}</DetailRow>
        <DetailRow label="Updated">{formatDateTime(w.updatedAt)}</DetailRow>
      </dl>
    </Card>
  );
}
