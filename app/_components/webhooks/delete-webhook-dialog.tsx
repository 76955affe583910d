'use client';

import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import type { Webhook } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert } from '../ui';

export function DeleteWebhookDialog({ webhook, onClose, onDeleted }: { webhook: Webhook; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: onDeleted }));

  return (
    <Modal
      title="Delete this endpoint?"
      onClose={onClose}
      dismissible={!remove.isPending}
      testId="delete-webhook-dialog"
      footer={
        <ModalActions
          label="Delete endpoint"
          variant="danger"
          onCancel={onClose}
          onConfirm={() => remove.mutate({ id: webhook.id })}
          pending={remove.isPending}
          testId="delete-webhook-confirm"
        />
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
        <p>
          Nothing more is sent to <code className="rounded bg-slate-100 px-1 font-mono text-xs break-all">{webhook.url}</code>, pending retries
          included, and its delivery log is deleted with it. The events themselves stay in the event log. This cannot be undone.
        </p>
      </div>
    </Modal>
  );
}
