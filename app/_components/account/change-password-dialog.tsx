'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, Button, TextField } from '../ui';

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 200;
const FIELDS = ['currentPassword', 'newPassword'] as const;
type Field = (typeof FIELDS)[number];
const INPUT_IDS: Record<Field, string> = { currentPassword: 'current-password', newPassword: 'new-password' };

interface Problem {
  message: string;
  param: string | null;
}

function validate(current: string, next: string): Problem | null {
  if (!current) return { message: 'Enter your current password.', param: 'currentPassword' };
  if (next.length < MIN_PASSWORD) return { message: `Use at least ${MIN_PASSWORD} characters.`, param: 'newPassword' };
  if (next.length > MAX_PASSWORD) return { message: `Use at most ${MAX_PASSWORD} characters.`, param: 'newPassword' };
  return null;
}

export function ChangePasswordDialog({ onClose }: { onClose: () => void }) {
  const trpc = useTRPC();
  const change = useMutation(trpc.account.changePassword.mutationOptions());
  const [values, setValues] = useState<Record<Field, string>>({ currentPassword: '', newPassword: '' });
  const [problem, setProblem] = useState<Problem | null>(null);

  function edit(field: Field, value: string) {
    setValues((v) => ({ ...v, [field]: value }));
    // The error of a field goes as soon as the user changes that field.
    if (problem?.param === field) setProblem(null);
  }

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const local = validate(values.currentPassword, values.newPassword);
    setProblem(local);
    if (local) return;
    try {
      await change.mutateAsync(values);
    } catch (err) {
      const param = apiErrorOf(err)?.param ?? null;
      setProblem({ message: errorMessage(err), param });
      // The submit button was disabled while pending, so focus went away: bring it to the field.
      if (param === 'currentPassword' || param === 'newPassword') document.getElementById(INPUT_IDS[param])?.focus();
    }
  }

  if (change.isSuccess) {
    return (
      <Modal
        title="Password changed"
        onClose={onClose}
        testId="change-password-dialog"
        footer={
          <Button onClick={onClose} data-testid="change-password-done">
            Done
          </Button>
        }
      >
        <p className="text-sm text-slate-700" role="status" data-testid="change-password-success">
          Your password has been changed. Your other sessions were signed out; this one stays signed in.
        </p>
      </Modal>
    );
  }

  const fieldError = (field: Field) => (problem?.param === field ? problem.message : null);
  const general = problem && !FIELDS.some((f) => f === problem.param) ? problem.message : null;

  return (
    <Modal
      title="Change password"
      description="Enter your current password, then the new one."
      onClose={onClose}
      dismissible={!change.isPending}
      onSubmit={onSubmit}
      testId="change-password-dialog"
      footer={
        <ModalActions label="Change password" onCancel={onClose} pending={change.isPending} testId="change-password-submit" />
      }
    >
      <div className="space-y-4">
        {general && <Alert data-testid="change-password-error">{general}</Alert>}
        <TextField
          id={INPUT_IDS.currentPassword}
          type="password"
          label="Current password"
          autoComplete="current-password"
          value={values.currentPassword}
          onChange={(e) => edit('currentPassword', e.target.value)}
          required
          autoFocus
          error={fieldError('currentPassword')}
        />
        <TextField
          id={INPUT_IDS.newPassword}
          type="password"
          label="New password"
          autoComplete="new-password"
          value={values.newPassword}
          onChange={(e) => edit('newPassword', e.target.value)}
          required
          minLength={MIN_PASSWORD}
          maxLength={MAX_PASSWORD}
          hint={`At least ${MIN_PASSWORD} characters.`}
          error={fieldError('newPassword')}
        />
      </div>
    </Modal>
  );
}
