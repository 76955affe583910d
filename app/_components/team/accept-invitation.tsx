'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { errorMessage } from '@/app/_lib/errors';
import { useTRPC } from '../providers';
import { Alert, Button, Spinner } from '../ui';
import { InvitationDetails } from './invitation-details';

// What an invitation link offers the signed-in account, and accepting it. A link that is not
// valid for this account says so in one way, whatever the reason.
export function AcceptInvitation({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const peek = useQuery({ ...trpc.invitations.peek.queryOptions({ token }), retry: false });
  const accept = useMutation(trpc.invitations.accept.mutationOptions());
  const [now] = useState(() => Date.now());

  if (peek.isPending) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-600">
        <Spinner /> Checking the invitation…
      </p>
    );
  }
  if (peek.isError) return <Alert data-testid="invite-error">{errorMessage(peek.error)}</Alert>;
  if (!peek.data) {
    return (
      <Alert data-testid="invite-invalid">
        This invitation link is not valid for your account: it may have expired, been used or revoked, or be meant for another email address. Ask
        for a new one, or sign in with the invited address.
      </Alert>
    );
  }
  const { workspace, role } = peek.data;
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700" data-testid="invite-offer">
        You are invited to join <strong className="font-semibold text-slate-900">{workspace}</strong> as {role === 'admin' ? 'an' : 'a'}{' '}
        <strong className="font-semibold text-slate-900">{role}</strong>.
      </p>
      <InvitationDetails invitation={peek.data} now={now} />
      {accept.isError && <Alert data-testid="invite-error">{errorMessage(accept.error)}</Alert>}
      <Button
        className="w-full"
        data-testid="invite-accept"
        disabled={accept.isPending}
        onClick={() =>
          accept.mutate(
            { token },
            {
              onSuccess: () => {
                router.replace('/dashboard/agents');
                router.refresh();
              },
            },
          )
        }
      >
        {accept.isPending ? 'Joining…' : `Join ${workspace}`}
      </Button>
    </div>
  );
}
