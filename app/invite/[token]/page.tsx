import type { Metadata } from 'next';
import Link from 'next/link';
import { AuthShell } from '@/app/_components/auth-shell';
import { Providers } from '@/app/_components/providers';
import { AcceptInvitation } from '@/app/_components/team/accept-invitation';
import { InvitationLanding } from '@/app/_components/team/invitation-landing';
import { currentSession } from '@/server/api/next-handle';
import { signupMode } from '@/server/modules/auth/signup';

export const metadata: Metadata = { title: 'Join a workspace' };

// An invitation link (docs/teams.md, "Invitations"). Signed out: what it invites to (to the
// holder of a usable link), then sign in, or sign up with the invited address, and back here.
// Signed in: what the link invites this account to, and Join. The token is only ever sent to the
// server's own procedures, never shown back.
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const session = await currentSession();
  if (!session) {
    // With sign-up closed, the operator made the account: sign in is the one way (no dead end).
    return (
      <Providers initialEnvironment="live">
        <InvitationLanding token={token} closed={signupMode() === 'closed'} />
      </Providers>
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
