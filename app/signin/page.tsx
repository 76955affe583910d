import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { AuthShell } from '@/app/_components/auth-shell';
import { SignInForm } from '@/app/_components/signin-form';
import { safeCallbackPath } from '@/server/modules/auth/callback-path';
import { githubEnabled } from '@/server/modules/auth/options';
import { currentSession } from '@/server/api/next-handle';

export const metadata: Metadata = { title: 'Sign in' };

// next-auth sends failures back here as ?error=<code>.
const ERRORS: Record<string, string> = {
  CredentialsSignin: 'Incorrect email or password.',
  GithubEmail: 'Your GitHub account has no verified email address we can use.',
  OAuthAccountNotLinked: 'This email is already used by another sign-in method.',
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
      footer={
        <>
          No account yet?{' '}
          <Link href="/signup" className="font-semibold text-indigo-600 hover:text-indigo-500">
            Create one
          </Link>
        </>
      }
    >
      <SignInForm github={githubEnabled} callbackPath={callbackPath} initialError={initialError} />
    </AuthShell>
  );
}
