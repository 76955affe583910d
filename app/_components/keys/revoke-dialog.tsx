'use client';

import { useMutation } from '@tanstack/react-query';
import type { KeyItem } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function RevokeDialog({ apiKey, onClose, onRevoked }: { apiKey: KeyItem; onClose: () => void; onRevoked: () => void }) {
  const trpc = useTRPC();
  const revoke = useMutation(trpc.keys.revoke.mutationOptions({ onSuccess: onRevoked }));

  return (
    <ConfirmDialog
      title={`Revoke “${apiKey.name}”?`}
      label="Revoke key"
      variant="danger"
      onClose={onClose}
      onConfirm={() => revoke.mutate({ id: apiKey.id })}
      pending={revoke.isPending}
      error={revoke.error}
      testId="revoke-dialog"
      confirmTestId="revoke-confirm"
    >
      <p>
        Requests using <code className="rounded bg-slate-100 px-1 font-mono text-xs">{apiKey.prefix}…</code> will fail with{' '}
        <code className="font-mono text-xs">401</code> immediately. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
