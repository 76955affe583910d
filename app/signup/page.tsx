import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { AuthShell } from '@/app/_components/auth-shell';
import { Providers } from '@/app/_components/providers';
import { SignUpForm } from '@/app/_components/signup-form';
import { currentSession } from '@/server/api/next-handle';
import { safeCallbackPath } from '@/server/modules/auth/callback-path';

export const metadata: Metadata = { title: 'Create an account' };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Where to go once signed up: a path on this site (an invitation link brings its own).
  const callbackPath = safeCallbackPath((await searchParams).callbackUrl);
  if (await currentSession()) redirect(callbackPath);
  return (
    <AuthShell
      title="Create your account"
      subtitle="You get your own workspace on the Starter plan."
      footer={
        <>
          Already have an account?{' '}
          <Link href={`/signin?callbackUrl=${encodeURIComponent(callbackPath)}`} className="font-semibold text-indigo-600 hover:text-indigo-500">
            Sign in
          </Link>
        </>
      }
    >
      <Providers initialEnvironment="live">
        <SignUpForm callbackPath={callbackPath} />
      </Providers>
    </AuthShell>
  );
}
