'use client';

import { useMutation } from '@tanstack/react-query';
import type { Agent, RotatedAgent } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function RotateToolSecretDialog({ agent, onClose, onRotated }: { agent: Agent; onClose: () => void; onRotated: (rotated: RotatedAgent) => void }) {
  const trpc = useTRPC();
  // gcTime 0: the response (which holds the new secret) leaves the mutation cache with this dialog.
  const rotate = useMutation({ ...trpc.agents.rotateToolSecret.mutationOptions({ onSuccess: onRotated }), gcTime: 0 });

  return (
    <ConfirmDialog
      title="Rotate the tool signing secret?"
      label="Rotate secret"
      onClose={onClose}
      onConfirm={() => rotate.mutate({ id: agent.id })}
      pending={rotate.isPending}
      error={rotate.error}
      testId="rotate-tool-secret-dialog"
      confirmTestId="rotate-tool-secret-confirm"
    >
      <p>A new secret signs every tool call of this agent from now on; it is shown once, on the next screen.</p>
      <p>
        The current secret <strong className="font-semibold">keeps signing for 24 hours</strong> (each call then carries both signatures), so you
        have a day to update your tool endpoints. After that, only the new secret verifies.
      </p>
    </ConfirmDialog>
  );
}
