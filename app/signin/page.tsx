import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { AuthShell } from '@/app/_components/auth-shell';
import { SignInForm } from '@/app/_components/signin-form';
import { safeCallbackPath } from '@/server/modules/auth/callback-path';
import { githubEnabled } from '@/server/modules/auth/options';
import { currentSession, pageDatabase } from '@/server/api/next-handle';
import { signupMode, visitorMaySignUp } from '@/server/modules/auth/signup';

export const metadata: Metadata = { title: 'Sign in' };

// next-auth sends failures back here as ?error=<code>.
const ERRORS: Record<string, string> = {
  CredentialsSignin: 'Incorrect email or password.',
  GithubEmail: 'Your GitHub account has no verified email address we can use.',
  OAuthAccountNotLinked: 'This email is already used by another sign-in method.',
  SignupClosed: 'Sign-up is closed on this server: its operator creates the accounts.',
  SignupByInvitation: 'Accounts on this server are by invitation: ask an owner or admin to invite the address of your GitHub account, then open the link they send.',
  AccessDenied: 'Access was denied.',
  SessionRequired: 'Please sign in to continue.',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackPath = safeCallbackPath(params.callbackUrl);
  if (await currentSession()) redirect(callbackPath);
  const code = typeof params.error === 'string' ? params.error : undefined;
  const initialError = code ? (ERRORS[code] ?? 'Sign-in failed. Please try again.') : null;

  return (
    <AuthShell
      title="Sign in"
      subtitle="Welcome back. Sign in to manage your API keys."
      footer={<NoAccountYet callbackPath={callbackPath} />}
    >
      <SignInForm github={githubEnabled} callbackPath={callbackPath} initialError={initialError} />
    </AuthShell>
  );
}

/**
 * What someone without an account can do (SIGNUP_MODE, server/modules/auth/signup.ts): create one
 * when the server would let them (an invitation link coming back here brings the right to), else
 * whom to ask — sign-up is not advertised where it is closed to them.
 */
async function NoAccountYet({ callbackPath }: { callbackPath: string }) {
  const mode = signupMode();
  const invited = mode !== 'closed' && callbackPath.startsWith('/invite/');
  if (invited || (await visitorMaySignUp((await pageDatabase()).db, mode))) {
    const href = invited ? `/signup?callbackUrl=${encodeURIComponent(callbackPath)}` : '/signup';
    return (
      <>
        No account yet?{' '}
        <Link href={href} className="font-semibold text-indigo-600 hover:text-indigo-500">
          Create one
        </Link>
      </>
    );
  }
  return (
    <span data-testid="signin-no-signup">
      No account yet? {mode === 'closed' ? 'Ask this server’s operator for one.' : 'Ask an owner or admin of a workspace here to invite you.'}
    </span>
  );
}
