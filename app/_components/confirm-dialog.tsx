'use client';

import type { ReactNode } from 'react';
import { errorMessage } from '@/app/_lib/errors';
import { Modal, ModalActions } from './modal';
import { Alert } from './ui';

/**
 * A confirmation: the title, what the action does (`children`), the action's error if it failed,
 * and Cancel (or `cancelLabel`) then the action. It cannot be dismissed while `pending`.
 * Test ids: `testId` on the dialog, `confirmTestId` on the action, `errorTestId` on the error.
 */
export function ConfirmDialog({
  title,
  label,
  variant,
  cancelLabel,
  onClose,
  onConfirm,
  pending,
  error,
  testId,
  confirmTestId,
  errorTestId,
  children,
}: {
  title: ReactNode;
  label: string;
  variant?: 'primary' | 'danger';
  cancelLabel?: string;
  onClose: () => void;
  onConfirm: () => void;
  pending: boolean;
  /** The failed action's error; null (or undefined) when it has not failed. */
  error: unknown;
  testId: string;
  confirmTestId: string;
  errorTestId?: string;
  children: ReactNode;
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      dismissible={!pending}
      testId={testId}
      footer={
        <ModalActions label={label} variant={variant} cancelLabel={cancelLabel} onCancel={onClose} onConfirm={onConfirm} pending={pending} testId={confirmTestId} />
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {error != null && <Alert data-testid={errorTestId}>{errorMessage(error)}</Alert>}
        {children}
      </div>
    </Modal>
  );
}
