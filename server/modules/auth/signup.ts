import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { advisoryXactLock } from '../../../db/advisory';
import { queryRows } from '../../../db/rows';
import { env } from '../../platform/env.js';
import { ApiError } from '../../platform/errors';
import { pendingInvitationFor } from './invitations';

// Who may create an account without the admin CLI (docs/security.md, "Sign-up"), by SIGNUP_MODE:
//   invite  (the default) the first account of an empty installation — whoever installed it —
//           then only the holder of a valid invitation link for the address signed up with (a
//           GitHub sign-in: a pending invitation for its verified address);
//   open    anyone who reaches the server;
//   closed  no one: accounts come from `npm run admin -- create-user`, invitations are accepted
//           by signing in to them.
// Self-hosted team tools close sign-up by default (n8n: the first user owns the instance, the
// rest are invited): an open form on a reachable server lets a stranger run agents on the
// operator's model keys. The admin CLI creates accounts in every mode.

export type SignupMode = 'invite' | 'open' | 'closed';

export const signupMode = (): SignupMode => env.SIGNUP_MODE;

/** What proves a new account may be made: its address, and the invitation link it came with or an address its provider verified. */
export type SignUpProof = { email: string; invitation?: string; verified?: boolean };

/** Why a sign-up is refused: the mode forbids it, it needs an invitation, or its link is not valid for its address. */
export type SignUpRefusal = 'closed' | 'by_invitation' | 'invitation_invalid';

// One lock for every sign-up in `invite` mode: the first-account check and the account's insert
// are one step, so two sign-ups at once on an empty installation make one account.
const SIGNUP_LOCK = sql`hashtextextended('aas:signup', 0)`;

/** Whether the installation has no account yet (its first sign-up is let in, in `invite` mode). */
export async function noAccountYet(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ any: boolean }>(db, sql`select exists (select 1 from users) as any`);
  return !row?.any;
}

/** Whether a visitor holding no invitation may sign up now (the pages offer the form, or say why not). */
export async function visitorMaySignUp(db: Db, mode = signupMode()): Promise<boolean> {
  return mode === 'open' || (mode === 'invite' && (await noAccountYet(db)));
}

/** Why this sign-up would be refused, or null. Read alone (a page, a pre-check), it may be stale: `admitNewAccount` decides. */
export async function signUpRefusal(db: Db, proof: SignUpProof, mode = signupMode()): Promise<SignUpRefusal | null> {
  if (mode === 'open') return null;
  if (mode === 'closed') return 'closed';
  if (proof.invitation !== undefined) return (await pendingInvitationFor(db, proof.email, proof.invitation)) ? null : 'invitation_invalid';
  if (proof.verified && (await pendingInvitationFor(db, proof.email))) return null;
  return (await noAccountYet(db)) ? null : 'by_invitation';
}

/**
 * Refuses, with the answer to give, unless this account may be made — in the transaction that
 * makes it (users.ts `createUser`), under the sign-up lock held to its commit.
 */
export async function admitNewAccount(tx: Db, proof: SignUpProof, mode = signupMode()): Promise<void> {
  if (mode === 'invite') await advisoryXactLock(tx, SIGNUP_LOCK);
  const refusal = await signUpRefusal(tx, proof, mode);
  if (refusal) throw signUpRefused(refusal);
}

export function signUpRefused(refusal: SignUpRefusal): ApiError {
  if (refusal === 'invitation_invalid') {
    // The words of every invalid link (invitations.ts): a link tells nothing it was not made to tell.
    return new ApiError('invitation_invalid', 'This invitation link is not valid for this email address: it may have expired, been used or revoked, or be meant for another address');
  }
  return new ApiError(
    'signup_closed',
    refusal === 'closed'
      ? 'Sign-up is closed on this server: its operator creates the accounts. If you were invited, sign in with the account made for you, then open the link again'
      : 'Sign-up on this server is by invitation: ask an owner or admin of a workspace to invite your email address, then create your account from the link they send',
  );
}
