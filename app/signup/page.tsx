import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { AuthShell } from '@/app/_components/auth-shell';
import { Providers } from '@/app/_components/providers';
import { SignUpForm } from '@/app/_components/signup-form';
import { ButtonLink } from '@/app/_components/ui';
import { currentSession, pageDatabase } from '@/server/api/next-handle';
import { safeCallbackPath } from '@/server/modules/auth/callback-path';
import { signupMode, visitorMaySignUp } from '@/server/modules/auth/signup';

export const metadata: Metadata = { title: 'Create an account' };

/** The token of the invitation link a visitor came from (`/invite/<token>` as where to go back to). */
const invitationIn = (path: string) => /^\/invite\/([A-Za-z0-9_-]{1,100})$/.exec(path)?.[1];

// What a visitor may do here depends on SIGNUP_MODE (server/modules/auth/signup.ts): the page
// offers the form only to someone the server would let in, and otherwise says plainly what they
// can do instead — never a form that can only fail.
export default async function SignUpPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Where to go once signed up: a path on this site (an invitation link brings its own).
  const callbackPath = safeCallbackPath((await searchParams).callbackUrl);
  if (await currentSession()) redirect(callbackPath);
  const mode = signupMode();
  // Coming from an invitation link: the form takes its address (and, by invitation, needs the link).
  const invitation = mode === 'closed' ? undefined : invitationIn(callbackPath);
  const signInHref = `/signin?callbackUrl=${encodeURIComponent(callbackPath)}`;
  const footer = (
    <>
      Already have an account?{' '}
      <Link href={signInHref} className="font-semibold text-indigo-600 hover:text-indigo-500">
        Sign in
      </Link>
    </>
  );

  if (mode === 'closed' || (!(mode === 'invite' && invitation) && !(await visitorMaySignUp((await pageDatabase()).db, mode)))) {
    const closed = mode === 'closed';
    return (
      <AuthShell
        title={closed ? 'Sign-up is closed' : 'Sign-up is by invitation'}
        subtitle={
          closed
            ? 'This server’s operator creates the accounts: ask them for one. If you were invited to a workspace, sign in with that account, then open the invitation link again.'
            : 'Ask an owner or admin of a workspace on this server to invite your email address, then create your account from the link they send you.'
        }
        footer={footer}
      >
        <div data-testid="signup-unavailable" data-mode={mode}>
          <ButtonLink href={signInHref} className="w-full">
            Sign in
          </ButtonLink>
        </div>
      </AuthShell>
    );
  }

  const subtitle = invitation
    ? 'Use the email address the invitation was sent to. You also get your own workspace, and come back to the invitation to join.'
    : mode === 'invite'
      ? 'You are the first on this server: your account owns its first workspace, and you invite the others.'
      : 'You get your own workspace on the Starter plan.';
  return (
    <AuthShell title="Create your account" subtitle={subtitle} footer={footer}>
      <Providers initialEnvironment="live">
        <SignUpForm callbackPath={callbackPath} invitation={invitation} needsInvitation={mode === 'invite'} />
      </Providers>
    </AuthShell>
  );
}
