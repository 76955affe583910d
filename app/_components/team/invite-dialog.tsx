'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { formatDateTime } from '@/app/_lib/dates';
import { ROLE_WORDS } from '@/app/_lib/words';
import { LinkField } from '../copy';
import { Modal, ModalActions, SecretModalFrame } from '../modal';
import { useTRPC } from '../providers';
import { Alert, SelectField, TextField } from '../ui';
import { ROLE_HELP, type Role } from './roles';

/** `mail`: whether the server mailed the link too (`off`: no SMTP_URL on the server). */
type Invited = { email: string; role: Role; path: string; expiresAt: string; mail: 'sent' | 'failed' | 'off' };

// Invite a member: an address and a role; the answer's link is shown once (like a key's secret),
// with a copy button, then dropped.
export function InviteDialog({ roles, onClose, onInvited }: { roles: readonly Role[]; onClose: () => void; onInvited: () => void }) {
  const trpc = useTRPC();
  const create = useMutation({ ...trpc.invitations.create.mutationOptions(), gcTime: 0 });
  const [role, setRole] = useState<Role>('developer');
  const [invited, setInvited] = useState<Invited | null>(null);

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget).get('email') ?? '').trim();
    create.mutate(
      { email, role },
      {
        onSuccess: (made) => {
          setInvited({ email: made.email, role: made.role, path: made.path, expiresAt: made.expiresAt, mail: made.mail });
          onInvited();
        },
      },
    );
  }

  if (invited) {
    const link = `${window.location.origin}${invited.path}`;
    return (
      <SecretModalFrame
        title={invited.mail === 'sent' ? 'Invitation sent' : 'Send this invitation link'}
        description={
          <>
            It lets <span className="font-medium text-slate-800">{invited.email}</span> join as {invited.role}, once, until{' '}
            <time dateTime={invited.expiresAt} data-testid="invite-link-expiry">
              {formatDateTime(invited.expiresAt)}
            </time>
            .
            <span className="mt-1 block" data-testid="invite-mail" data-mail={invited.mail}>
              {invited.mail === 'sent'
                ? 'It was mailed to them; you can also share the link yourself.'
                : invited.mail === 'failed'
                  ? 'The mail to them could not be sent: share the link yourself.'
                  : 'This server sends no mail (SMTP_URL is not set): share the link yourself.'}
            </span>
          </>
        }
        warning={
          <>
            <strong className="font-semibold">Copy the link now.</strong> It is not shown again. Anyone holding it can see the invitation, but only an
            account with that email address can accept it.
          </>
        }
        onDone={onClose}
        testId="invite-link-modal"
        doneTestId="invite-link-done"
      >
        <LinkField label="Invitation link" url={link} testId="invite-link" statusTestId="invite-link-status" />
      </SecretModalFrame>
    );
  }

  const error = create.error;
  const param = error ? apiErrorOf(error)?.param : null;
  return (
    <Modal
      title="Invite a member"
      description="They join with the role you choose, once they accept with this email address."
      onClose={onClose}
      dismissible={!create.isPending}
      testId="invite-dialog"
      onSubmit={onSubmit}
      footer={<ModalActions label="Create invitation" onCancel={onClose} pending={create.isPending} testId="invite-submit" />}
    >
      <div className="space-y-4">
        {error && param !== 'email' && <Alert data-testid="invite-dialog-error">{errorMessage(error)}</Alert>}
        <TextField id="invite-email" name="email" type="email" label="Email address" required maxLength={254} autoComplete="off" error={param === 'email' && error ? errorMessage(error) : null} />
        <SelectField id="invite-role" label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} hint={ROLE_HELP[role]}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {ROLE_WORDS[r]}
            </option>
          ))}
        </SelectField>
      </div>
    </Modal>
  );
}
