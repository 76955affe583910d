'use client';

import { useMutation } from '@tanstack/react-query';
import { signOut } from 'next-auth/react';
import { useState } from 'react';
import { errorMessage } from '@/app/_lib/errors';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert } from '../ui';

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
    <Modal
      title="Sign out everywhere?"
      onClose={onClose}
      dismissible={!pending}
      testId="sign-out-everywhere-dialog"
      footer={
        <ModalActions
          label="Sign out everywhere"
          variant="danger"
          onCancel={onClose}
          onConfirm={() => void onConfirm()}
          pending={pending}
          testId="sign-out-everywhere-confirm"
        />
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {end.isError && <Alert data-testid="sign-out-everywhere-error">{errorMessage(end.error)}</Alert>}
        <p>
          This ends every session of your account, on every browser and device, <strong className="font-semibold">including this one</strong>.
          You will need to sign in again.
        </p>
        <p className="text-slate-500">API keys are not affected: programs using them keep working.</p>
      </div>
    </Modal>
  );
}
