'use client';

import { useMutation } from '@tanstack/react-query';
import { signOut } from 'next-auth/react';
import { useState } from 'react';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function SignOutEverywhereDialog({ onClose }: { onClose: () => void }) {
  const trpc = useTRPC();
  const end = useMutation(trpc.account.signOutEverywhere.mutationOptions());
  const [leaving, setLeaving] = useState(false);
  const pending = end.isPending || leaving;

  async function onConfirm() {
    try {
      await end.mutateAsync();
    } catch {
      return;
    }
    setLeaving(true);
    await signOut({ callbackUrl: '/signin' });
  }

  return (
    <ConfirmDialog
      title="Sign out everywhere?"
      label="Sign out everywhere"
      variant="danger"
      onClose={onClose}
      onConfirm={() => void onConfirm()}
      pending={pending}
      error={end.error}
      testId="sign-out-everywhere-dialog"
      confirmTestId="sign-out-everywhere-confirm"
      errorTestId="sign-out-everywhere-error"
    >
      <p>
        This ends every session of your account, on every browser and device, <strong className="font-semibold">including this one</strong>.
        You will need to sign in again.
      </p>
      <p className="text-slate-500">API keys are not affected: programs using them keep working.</p>
    </ConfirmDialog>
  );
}
