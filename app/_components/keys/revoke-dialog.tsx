'use client';

import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import type { KeyItem } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert } from '../ui';

export function RevokeDialog({ apiKey, onClose, onRevoked }: { apiKey: KeyItem; onClose: () => void; onRevoked: () => void }) {
  const trpc = useTRPC();
  const revoke = useMutation(trpc.keys.revoke.mutationOptions({ onSuccess: onRevoked }));

  return (
    <Modal
      title={`Revoke “${apiKey.name}”?`}
      onClose={onClose}
      dismissible={!revoke.isPending}
      testId="revoke-dialog"
      footer={
        <ModalActions
          label="Revoke key"
          variant="danger"
          onCancel={onClose}
          onConfirm={() => revoke.mutate({ id: apiKey.id })}
          pending={revoke.isPending}
          testId="revoke-confirm"
        />
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {revoke.isError && <Alert>{errorMessage(revoke.error)}</Alert>}
        <p>
          Requests using <code className="rounded bg-slate-100 px-1 font-mono text-xs">{apiKey.prefix}…</code> will fail with{' '}
          <code className="font-mono text-xs">401</code> immediately. This cannot be undone.
        </p>
      </div>
    </Modal>
  );
}
