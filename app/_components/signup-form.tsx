'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { useTRPC } from './providers';
import { INVALID_LINK } from './team/invitation-landing';
import { Alert, Button, Spinner, TextField } from './ui';

const MIN_PASSWORD = 8;

/**
 * `invitation`: the token of the link the visitor came from. The account takes the invited address
 * (filled in, not editable: the link works for it alone), and a sign-up by invitation sends the
 * token. `needsInvitation` (SIGNUP_MODE=invite): without a usable link the form could only fail,
 * so the invalid link's one answer stands in its place.
 */
export function SignUpForm({ callbackPath = '/dashboard/keys', invitation, needsInvitation = false }: { callbackPath?: string; invitation?: string; needsInvitation?: boolean }) {
  const trpc = useTRPC();
  const invited = useQuery({ ...trpc.invitations.preview.queryOptions({ token: invitation ?? '' }), enabled: invitation !== undefined, retry: false, staleTime: Infinity });
  const router = useRouter();
  const signUp = useMutation(trpc.account.signUp.mutationOptions());
  const [error, setError] = useState<{ message: string; param: string | null } | null>(null);
  const [signingIn, setSigningIn] = useState(false);
  const pending = signUp.isPending || signingIn;

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    if (!email) return setError({ message: 'Enter your email address.', param: 'email' });
    if (password.length < MIN_PASSWORD) {
      return setError({ message: `Use at least ${MIN_PASSWORD} characters for your password.`, param: 'password' });
    }
    setError(null);
    try {
      await signUp.mutateAsync({ email, password, ...(name ? { name } : {}), ...(invitation ? { invitation } : {}) });
    } catch (err) {
      return setError({ message: errorMessage(err), param: apiErrorOf(err)?.param ?? null });
    }
    setSigningIn(true);
    const result = await signIn('credentials', { email, password, redirect: false }).catch(() => undefined);
    if (result?.ok && !result.error) {
      router.replace(callbackPath);
      router.refresh();
      return;
    }
    setSigningIn(false);
    // The server answers sign-up alike for new and known addresses, so this also covers an
    // email that already has an account (with another password).
    setError({ message: 'Could not sign you in with this email and password. If you already have an account, sign in instead.', param: null });
  }

  const fieldError = (param: string) => (error?.param === param ? error.message : null);
  // A field's error goes as soon as the user edits that field.
  const clearError = (param: string) => () => setError((e) => (e?.param === param ? null : e));

  if (invitation !== undefined && invited.isPending) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-600" aria-busy="true" data-testid="signup-invitation-loading">
        <Spinner /> Checking the invitation…
      </p>
    );
  }
  const invitedEmail = invited.data?.email;
  if (invitation !== undefined && needsInvitation && !invitedEmail) {
    return <Alert data-testid={invited.isError ? 'invite-error' : 'invite-invalid'}>{invited.isError ? errorMessage(invited.error) : INVALID_LINK}</Alert>;
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" noValidate>
      {error && !error.param && <Alert data-testid="signup-error">{error.message}</Alert>}
      <TextField id="signup-name" name="name" label="Name (optional)" autoComplete="name" maxLength={100} error={fieldError('name')} onChange={clearError('name')} />
      <TextField
        id="signup-email"
        name="email"
        type="email"
        label="Email"
        autoComplete="email"
        required
        error={fieldError('email')}
        onChange={clearError('email')}
        {...(invitedEmail
          ? { defaultValue: invitedEmail, readOnly: true, className: 'bg-slate-50 text-slate-700', hint: 'The address the invitation is for: the link works for it alone.' }
          : {})}
      />
      <TextField
        id="signup-password"
        name="password"
        type="password"
        label="Password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD}
        hint={`At least ${MIN_PASSWORD} characters.`}
        error={fieldError('password')}
        onChange={clearError('password')}
      />
      <Button type="submit" className="w-full" disabled={pending} data-testid="signup-submit">
        {pending && <Spinner />}
        {signingIn ? 'Signing in…' : signUp.isPending ? 'Creating account…' : 'Create account'}
      </Button>
    </form>
  );
}
