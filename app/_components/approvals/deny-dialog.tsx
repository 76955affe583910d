'use client';

import { useState } from 'react';
import { errorMessage } from '@/app/_lib/errors';
import { Modal, ModalActions } from '../modal';
import { Alert, TextAreaField } from '../ui';

/** The most a reason may hold (executions.approvals' `reason`). */
const MAX_REASON = 1_000;

/**
 * Denying a call: a confirmation, with the reason the model is told. The call never runs, and
 * the run goes on from there. It cannot be undone.
 */
export function DenyDialog({
  tool,
  onClose,
  onDeny,
  pending,
  error,
}: {
  tool: string;
  onClose: () => void;
  onDeny: (reason: string | undefined) => void;
  pending: boolean;
  error: unknown;
}) {
  const [reason, setReason] = useState('');
  return (
    <Modal
      title={
        <>
          Deny this call of <code className="font-mono">{tool}</code>?
        </>
      }
      description="The call never runs: the model is told it was denied, with your reason, and the run goes on. This cannot be undone."
      onClose={onClose}
      dismissible={!pending}
      onSubmit={(e) => {
        e.preventDefault();
        onDeny(reason.trim() || undefined);
      }}
      testId="deny-dialog"
      footer={<ModalActions label="Deny call" variant="danger" onCancel={onClose} pending={pending} testId="deny-confirm" />}
    >
      <div className="space-y-4">
        {error != null && <Alert data-testid="deny-error">{errorMessage(error)}</Alert>}
        <TextAreaField
          id="deny-reason"
          label="Reason (optional)"
          rows={3}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          maxLength={MAX_REASON}
          placeholder="e.g. Refunds above 100 EUR need a manager"
          hint="Given to the model, and kept with the call in the execution's steps."
          autoFocus
          data-testid="deny-reason"
        />
      </div>
    </Modal>
  );
}
