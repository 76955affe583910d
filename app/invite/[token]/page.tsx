import type { Metadata } from 'next';
import Link from 'next/link';
import { AuthShell } from '@/app/_components/auth-shell';
import { Providers } from '@/app/_components/providers';
import { AcceptInvitation } from '@/app/_components/team/accept-invitation';
import { ButtonLink } from '@/app/_components/ui';
import { currentSession } from '@/server/api/next-handle';
import { signupMode } from '@/server/modules/auth/signup';

export const metadata: Metadata = { title: 'Join a workspace' };

// An invitation link (docs/teams.md, "Invitations"). Signed out: sign in, or sign up, with the
// invited address, then back here. Signed in: what the link invites this account to, and Accept.
// The token is only ever sent to the server's own procedures, never shown back.
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const back = `/invite/${encodeURIComponent(token)}`;
  const session = await currentSession();
  if (!session) {
    // With sign-up closed, the operator made the account: sign in is the one way (no dead end).
    const closed = signupMode() === 'closed';
    return (
      <AuthShell
        title="You are invited"
        subtitle={
          closed
            ? 'Sign in with the account made for the email address the invitation was sent to (this server’s operator creates accounts). You come back here to accept it.'
            : 'Sign in, or create an account, with the email address the invitation was sent to. You come back here to accept it.'
        }
        footer={
          <Link href="/" className="font-semibold text-indigo-600 hover:text-indigo-500">
            What is this?
          </Link>
        }
      >
        <div className="flex flex-col gap-3">
          <ButtonLink href={`/signin?callbackUrl=${encodeURIComponent(back)}`} data-testid="invite-signin">
            Sign in
          </ButtonLink>
          {!closed && (
            <ButtonLink variant="secondary" href={`/signup?callbackUrl=${encodeURIComponent(back)}`} data-testid="invite-signup">
              Create an account
            </ButtonLink>
          )}
        </div>
      </AuthShell>
    );
  }
  return (
    <AuthShell
      title="Join a workspace"
      subtitle={`Signed in as ${session.user?.email ?? 'you'}.`}
      footer={
        <Link href="/dashboard/keys" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Go to your dashboard
        </Link>
      }
    >
      <Providers initialEnvironment="live">
        <AcceptInvitation token={token} />
      </Providers>
    </AuthShell>
  );
}
