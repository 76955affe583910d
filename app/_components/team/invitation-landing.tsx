'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { errorMessage } from '@/app/_lib/errors';
import { AuthShell } from '../auth-shell';
import { useTRPC } from '../providers';
import { Alert, ButtonLink, Spinner } from '../ui';
import { InvitationDetails } from './invitation-details';

/** The one answer for every link that is not usable, signed out (docs/teams.md: one answer, whatever the reason). */
export const INVALID_LINK =
  'This invitation link is not valid: it may have expired, been used or revoked, or been replaced by a newer one. Ask whoever invited you for a new link.';

// An invitation link opened signed out (docs/teams.md, "Invitations"): to its holder — the token
// is the secret — the workspace, the role, the inviter and the address to use, then sign in or
// create an account with it (pre-filled) and come back to join. Any other link: one answer.
export function InvitationLanding({ token, closed }: { token: string; closed: boolean }) {
  const trpc = useTRPC();
  const preview = useQuery({ ...trpc.invitations.preview.queryOptions({ token }), retry: false, staleTime: Infinity });
  const [now] = useState(() => Date.now());
  const back = `/invite/${encodeURIComponent(token)}`;
  const footer = (
    <Link href="/" className="font-semibold text-indigo-600 hover:text-indigo-500">
      What is this?
    </Link>
  );
  const signIn = (
    <ButtonLink href={`/signin?callbackUrl=${encodeURIComponent(back)}`} variant={preview.data ? 'primary' : 'secondary'} data-testid="invite-signin">
      Sign in
    </ButtonLink>
  );

  if (preview.isPending) {
    return (
      <AuthShell title="Invitation" subtitle="Checking the link…" footer={footer}>
        <p className="flex items-center gap-2 text-sm text-slate-600" data-testid="invite-loading" aria-busy="true">
          <Spinner /> Checking the invitation…
        </p>
      </AuthShell>
    );
  }
  if (preview.isError || !preview.data) {
    return (
      <AuthShell title="Invitation" subtitle="This link cannot be used." footer={footer}>
        <div className="flex flex-col gap-4">
          {preview.isError ? <Alert data-testid="invite-error">{errorMessage(preview.error)}</Alert> : <Alert data-testid="invite-invalid">{INVALID_LINK}</Alert>}
          {signIn}
        </div>
      </AuthShell>
    );
  }
  const invitation = preview.data;
  return (
    <AuthShell
      title="You are invited"
      subtitle={
        <>
          to join <strong className="font-semibold text-slate-900">{invitation.workspace}</strong>.{' '}
          {closed
            ? `Sign in with the account made for ${invitation.email} (this server’s operator creates accounts), then join.`
            : `Sign in, or create an account, with ${invitation.email}, then join.`}
        </>
      }
      footer={footer}
    >
      <div className="flex flex-col gap-5" data-testid="invite-preview">
        <InvitationDetails invitation={invitation} now={now} />
        <div className="flex flex-col gap-3">
          {signIn}
          {!closed && (
            <ButtonLink variant="secondary" href={`/signup?callbackUrl=${encodeURIComponent(back)}`} data-testid="invite-signup">
              Create an account
            </ButtonLink>
          )}
        </div>
      </div>
    </AuthShell>
  );
}
