'use client';

import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { TOO_MANY_SIGN_IN_ATTEMPTS } from '@/server/modules/auth/signin-errors';
import { Alert, Button, Spinner, TextField } from './ui';

export function SignInForm({ github, callbackPath, initialError }: { github: boolean; callbackPath: string; initialError: string | null }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
    }).catch(() => undefined);
    if (result?.ok && !result.error) {
      router.replace(callbackPath);
      router.refresh();
      return;
    }
    setPending(false);
    setError(
      result?.error === TOO_MANY_SIGN_IN_ATTEMPTS
        ? 'Too many failed attempts for this email. Wait 15 minutes, then try again.'
        : result?.error === 'CredentialsSignin' || result?.status === 401
          ? 'Incorrect email or password.'
          : 'Could not sign in right now. Please try again.',
    );
  }

  return (
    <div className="space-y-6">
      <form onSubmit={onSubmit} className="space-y-4">
        {error && <Alert data-testid="signin-error">{error}</Alert>}
        <TextField id="signin-email" name="email" type="email" label="Email" autoComplete="email" required autoFocus />
        <TextField id="signin-password" name="password" type="password" label="Password" autoComplete="current-password" required />
        <Button type="submit" className="w-full" disabled={pending} data-testid="signin-submit">
          {pending && <Spinner />}
          {pending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      {github && (
        <>
          <div className="flex items-center gap-3 text-xs text-slate-400" aria-hidden>
            <span className="h-px flex-1 bg-slate-200" />
            or
            <span className="h-px flex-1 bg-slate-200" />
          </div>
          <Button variant="secondary" className="w-full" onClick={() => void signIn('github', { callbackUrl: callbackPath })}>
            <svg aria-hidden viewBox="0 0 16 16" className="size-4 fill-current">
              <path d="M8 0C3.58 0 0 3.58 0 8c0 3.54 2.29 6.53 5.47 7.59.4.07.55-.17.55-.38 0-.19-.01-.82-.01-1.49-2.01.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82.64-.18 1.32-.27 2-.27.68 0 1.36.09 2 .27 1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 1.48 0 1.07-.01 1.93-.01 2.2 0 .21.15.46.55.38A8.013 8.013 0 0016 8c0-4.42-3.58-8-8-8z" />
            </svg>
            Continue with GitHub
          </Button>
        </>
      )}
    </div>
  );
}
