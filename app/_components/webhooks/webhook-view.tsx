'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import type { RotatedWebhook, Webhook } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';
import { Breadcrumb, EmptyState, LoadError, PageSkeleton, WebhookIcon } from '../states';
import { Alert, Button, ButtonLink, Card, Spinner } from '../ui';
import { DeleteWebhookDialog } from './delete-webhook-dialog';
import { DeliveriesLog, type Awaited } from './deliveries-log';
import { RotateSecretDialog } from './rotate-secret-dialog';
import { disabledNote, WebhookStatusBadge } from './status';
import { useSetEnabled } from './use-set-enabled';
import { WebhookDetails } from './webhook-details';
import { WebhookSecretModal } from './webhook-secret-modal';
import { useCan } from '../team/use-can';

/**
 * The one on/off action (the badge beside the title says which it is): Disable, or Enable, which
 * also revives an endpoint the server disabled (410, or failing for days).
 */
function EnabledAction({ webhook }: { webhook: Webhook }) {
  const update = useSetEnabled();
  const on = webhook.enabled;
  return (
    <div className="flex items-center gap-2">
      <Button
        variant={on ? 'secondary' : 'primary'}
        onClick={() => update.mutate({ id: webhook.id, enabled: !on })}
        disabled={update.isPending}
        title={on ? 'Stop sending events to this endpoint until you enable it again' : 'Send events to this endpoint again'}
        data-testid="webhook-enabled-toggle"
        data-enabled={on}
      >
        {update.isPending && <Spinner className="size-3.5" />}
        {on ? 'Disable' : 'Enable'}
      </Button>
      {update.isError && (
        <span role="alert" className="text-xs text-red-600">
          {errorMessage(update.error)}
        </span>
      )}
    </div>
  );
}

export function WebhookView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const webhook = useQuery(trpc.webhooks.get.queryOptions({ id }));
  const enable = useSetEnabled();
  const [awaited, setAwaited] = useState<Awaited | null>(null);
  const test = useMutation(trpc.webhooks.test.mutationOptions());
  const sendTest = (webhookId: string) =>
    test.mutate(
      { id: webhookId },
      {
        onSuccess: (event) => {
          // The log polls until this event's delivery shows up (the relay creates it a moment later).
          setAwaited({ eventId: event.id, since: Date.now() });
          void queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() });
        },
      },
    );
  const can = useCan();
  const [dialog, setDialog] = useState<'rotate' | 'delete' | null>(null);
  const [rotated, setRotated] = useState<RotatedWebhook | null>(null);

  if (webhook.isPending) return <PageSkeleton label="Loading the webhook" testId="webhook-loading" />;
  if (webhook.isError) {
    const missing = apiErrorOf(webhook.error)?.code === 'resource_not_found';
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/webhooks" parent="Webhooks" current={id} />
        <Card>
          {missing ? (
            <EmptyState icon={<WebhookIcon />} title="No such endpoint here" action={<ButtonLink href="/dashboard/webhooks">Back to webhooks</ButtonLink>} testId="webhook-not-found">
              It was deleted, or it belongs to {environment === 'test' ? 'live' : 'test'} mode: endpoints of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This endpoint" error={webhook.error} onRetry={() => void webhook.refetch()} testId="webhook-error" />
          )}
        </Card>
      </div>
    );
  }

  const w = webhook.data;
  const note = disabledNote(w);
  return (
    <div className="space-y-6" data-testid="webhook-page">
      <Breadcrumb href="/dashboard/webhooks" parent="Webhooks" current={w.description ?? w.url} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xl font-semibold tracking-tight text-slate-900">
            <span className="min-w-0 font-mono text-lg break-all" data-testid="webhook-title">
              {w.url}
            </span>
            <WebhookStatusBadge webhook={w} />
          </h1>
          {w.description && <p className="mt-1 max-w-2xl text-sm break-words text-slate-600">{w.description}</p>}
        </div>
        {can.administer && (
        <div className="flex flex-wrap items-center gap-2">
          {/* A server-disabled endpoint's Enable sits in the note below, with the reason. */}
          {!note && <EnabledAction webhook={w} />}
          <Button
            variant="secondary"
            onClick={() => sendTest(w.id)}
            disabled={!w.enabled || test.isPending}
            title={w.enabled ? undefined : 'Enable the endpoint to send it a test event'}
            data-testid="send-test-event"
          >
            {test.isPending && <Spinner />}
            Send test event
          </Button>
          <Button variant="secondary" onClick={() => setDialog('rotate')} data-testid="rotate-secret">
            Rotate secret
          </Button>
          <Button variant="dangerGhost" onClick={() => setDialog('delete')} data-testid="delete-webhook">
            Delete
          </Button>
        </div>
        )}
      </div>

      {note && (
        <Alert data-testid="webhook-disabled-note">
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p>
              <strong className="font-semibold">{note}.</strong> No events are sent to it until you enable it again.
            </p>
            <Button variant="secondary" onClick={() => enable.mutate({ id: w.id, enabled: true })} disabled={enable.isPending} data-testid="webhook-enable">
              {enable.isPending && <Spinner />}
              Enable
            </Button>
          </div>
          {enable.isError && <p className="mt-1 text-xs">{errorMessage(enable.error)}</p>}
        </Alert>
      )}
      {test.isError && <Alert data-testid="test-event-error">{errorMessage(test.error)}</Alert>}
      {test.isSuccess && (
        <p aria-live="polite" className="text-sm text-slate-600" data-testid="test-event-sent">
          Test event <code className="font-mono text-xs">{test.data.id}</code> sent: its delivery appears in the log below.
        </p>
      )}

      <div className="grid items-start gap-6 lg:grid-cols-3">
        <div className="min-w-0 lg:col-span-2">
          <DeliveriesLog webhookId={w.id} enabled={w.enabled} awaited={awaited} />
        </div>
        <WebhookDetails webhook={w} />
      </div>

      {dialog === 'rotate' && (
        <RotateSecretDialog
          webhook={w}
          onClose={() => setDialog(null)}
          onRotated={(r) => {
            setDialog(null);
            setRotated(r);
            void queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: w.id }) });
          }}
        />
      )}
      {rotated && (
        <WebhookSecretModal url={rotated.url} environment={rotated.environment} secret={rotated.secret} previousExpiresAt={rotated.previousSecretExpiresAt} onDone={() => setRotated(null)} />
      )}
      {dialog === 'delete' && (
        <DeleteWebhookDialog
          webhook={w}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.pathKey() });
            router.push('/dashboard/webhooks');
          }}
        />
      )}
    </div>
  );
}
