'use client';

import { useMutation } from '@tanstack/react-query';
import type { Webhook } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function DeleteWebhookDialog({ webhook, onClose, onDeleted }: { webhook: Webhook; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: onDeleted }));

  return (
    <ConfirmDialog
      title="Delete this endpoint?"
      label="Delete endpoint"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: webhook.id })}
      pending={remove.isPending}
      error={remove.error}
      testId="delete-webhook-dialog"
      confirmTestId="delete-webhook-confirm"
    >
      <p>
        Nothing more is sent to <code className="rounded bg-slate-100 px-1 font-mono text-xs break-all">{webhook.url}</code>, pending retries
        included, and its delivery log is deleted with it. The events themselves stay in the event log. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
