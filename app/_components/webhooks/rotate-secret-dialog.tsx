'use client';

import { useMutation } from '@tanstack/react-query';
import type { RotatedWebhook, Webhook } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function RotateSecretDialog({ webhook, onClose, onRotated }: { webhook: Webhook; onClose: () => void; onRotated: (rotated: RotatedWebhook) => void }) {
  const trpc = useTRPC();
  // gcTime 0: the response (which holds the new secret) leaves the mutation cache with this dialog.
  const rotate = useMutation({ ...trpc.webhooks.rotateSecret.mutationOptions({ onSuccess: onRotated }), gcTime: 0 });

  return (
    <ConfirmDialog
      title="Rotate the signing secret?"
      label="Rotate secret"
      onClose={onClose}
      onConfirm={() => rotate.mutate({ id: webhook.id })}
      pending={rotate.isPending}
      error={rotate.error}
      testId="rotate-secret-dialog"
      confirmTestId="rotate-secret-confirm"
    >
      <p>A new secret signs every delivery from now on; it is shown once, on the next screen.</p>
      <p>
        The current secret <strong className="font-semibold">keeps signing for 24 hours</strong> (each delivery then carries both signatures), so
        you have a day to update your endpoint. After that, only the new secret verifies.
      </p>
    </ConfirmDialog>
  );
}
