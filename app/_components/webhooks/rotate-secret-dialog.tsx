'use client';

import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import type { RotatedWebhook, Webhook } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert } from '../ui';

export function RotateSecretDialog({ webhook, onClose, onRotated }: { webhook: Webhook; onClose: () => void; onRotated: (rotated: RotatedWebhook) => void }) {
  const trpc = useTRPC();
  // gcTime 0: the response (which holds the new secret) leaves the mutation cache with this dialog.
  const rotate = useMutation({ ...trpc.webhooks.rotateSecret.mutationOptions({ onSuccess: onRotated }), gcTime: 0 });

  return (
    <Modal
      title="Rotate the signing secret?"
      onClose={onClose}
      dismissible={!rotate.isPending}
      testId="rotate-secret-dialog"
      footer={
        <ModalActions
          label="Rotate secret"
          onCancel={onClose}
          onConfirm={() => rotate.mutate({ id: webhook.id })}
          pending={rotate.isPending}
          testId="rotate-secret-confirm"
        />
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {rotate.isError && <Alert>{errorMessage(rotate.error)}</Alert>}
        <p>A new secret signs every delivery from now on; it is shown once, on the next screen.</p>
        <p>
          The current secret <strong className="font-semibold">keeps signing for 24 hours</strong> (each delivery then carries both signatures), so
          you have a day to update your endpoint. After that, only the new secret verifies.
        </p>
      </div>
    </Modal>
  );
}
