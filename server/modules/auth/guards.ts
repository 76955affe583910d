import type { CounterFactory } from '../../platform/ratelimit/store';

// Brute-force guards of the dashboard's sign-in and sign-up, counted in the rate-limit store
// (memory when embedded, Redis or PostgreSQL when scaled out), so every process shares them.
//
// An attempt is spent *before* the password is checked: each counter's increment is atomic, so
// 200 concurrent guesses get exactly the allowed number of checks, never more. A correct
// password gives the attempt back.
//
// Sign-in (docs/security.md, "Dashboard accounts"; OWASP's lockout keyed by account and address,
// with the owner's known addresses spared):
//   - per account and address: 10 failures in 15 minutes stop that address guessing that
//     account. One attacker's address no longer locks the owner out: the owner's own addresses
//     have their own count;
//   - per address: 30 failures in 15 minutes, whichever accounts it tries;
//   - per account, over every address it has not signed in from: 30 checks in 15 minutes. This
//     bounds guessing from many addresses (30 per 15 minutes, however many the attacker has).
//     An address that signed in to the account within the last 14 days is *known* and not
//     counted here, so the owner's usual addresses keep signing in during such an attack; only
//     a first sign-in from a new address waits for the window to end.
// Each count is spent only by attempts the ones before it let through (account and address,
// then address, then account): an address over its limit on one account adds nothing to its
// count across accounts, nor to the account's (else one address could still exhaust it); and
// 200 concurrent tries from one address get exactly its 10 checks.

/** Failures one address may make on one account in 15 minutes. */
export const SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS = 10;
/** One client address may fail this often in 15 minutes, whichever accounts it tries (so it cannot lock out everyone). */
export const SIGN_IN_FAILURES_PER_ADDRESS = 30;
/** Password checks of one account in 15 minutes from addresses not known for it (guessing from many addresses). */
export const SIGN_IN_CHECKS_PER_ACCOUNT = 30;
const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** How long an address that signed in stays known for its account (the PostgreSQL store's counters take at most ~24 days). */
export const KNOWN_ADDRESS_SECONDS = 14 * 24 * 60 * 60;
/** New accounts per client address per hour, unless configured (RATE_LIMIT_SIGNUPS_PER_HOUR). */
export const SIGN_UPS_PER_ADDRESS = 10;
const SIGN_UP_WINDOW_SECONDS = 60 * 60;
/** Invitation links one client address may try and fail per hour (docs/teams.md, "Invitations"). */
export const INVITE_FAILURES_PER_ADDRESS = 20;

export interface AuthGuards {
  signIn: {
    /**
     * Spends one attempt for `account` (the matched user's id, or the canonical email when no
     * user matches) from `address`. Returns 0 when the password may be checked, else the
     * seconds to wait.
     */
    attempt(account: string, address: string): Promise<number>;
    /** The password was right: the attempt is given back, and the address becomes known for the account. */
    succeeded(account: string, address: string): Promise<void>;
  };
  signUp: {
    /** Spends one sign-up for `address`. Returns 0 when allowed, else the seconds to wait. */
    attempt(address: string): Promise<number>;
  };
  invite: {
    /** Whether `address` may try an invitation link now: 0, else the seconds to wait (its failures used up). */
    check(address: string): Promise<number>;
    /** Counts a link `address` tried that was not valid for it. */
    failed(address: string): Promise<void>;
  };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
/** One counter key per account and address (an address never holds `|`, so the last one splits them). */
const pairOf = (account: string, address: string) => `${account}|${address}`;

export function createAuthGuards(counter: CounterFactory, opts: { signUpsPerHour?: number } = {}): AuthGuards {
  const signUpLimit = opts.signUpsPerHour ?? SIGN_UPS_PER_ADDRESS;
  const perPair = counter('rl:signin:pair', SIGN_IN_WINDOW_SECONDS);
  const perAddress = counter('rl:signin:addr', SIGN_IN_WINDOW_SECONDS);
  const perAccount = counter('rl:signin', SIGN_IN_WINDOW_SECONDS);
  const known = counter('rl:signin:known', KNOWN_ADDRESS_SECONDS);
  const signUps = counter('rl:signup:addr', SIGN_UP_WINDOW_SECONDS);
  const inviteFailures = counter('rl:invite:addr', SIGN_UP_WINDOW_SECONDS);

  return {
    signIn: {
      async attempt(account, address) {
        const pair = pairOf(account, address);
        const byPair = await perPair.consume(pair, 1);
        if (byPair.consumedPoints > SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS) return seconds(byPair.msBeforeNext);
        const [byAddress, knownHere] = await Promise.all([perAddress.consume(address, 1), known.get(pair)]);
        if (byAddress.consumedPoints > SIGN_IN_FAILURES_PER_ADDRESS) return seconds(byAddress.msBeforeNext);
        if (knownHere) return 0;
        const byAccount = await perAccount.consume(account, 1);
        return byAccount.consumedPoints > SIGN_IN_CHECKS_PER_ACCOUNT ? seconds(byAccount.msBeforeNext) : 0;
      },
      async succeeded(account, address) {
        const pair = pairOf(account, address);
        // An address that was not known spent one of the account's checks: it is given back.
        const wasKnown = await known.get(pair);
        await Promise.all([
          perPair.delete(pair),
          perAddress.reward(address, 1),
          wasKnown ? null : perAccount.reward(account, 1),
          known.set(pair, 1, KNOWN_ADDRESS_SECONDS),
        ]);
      },
    },
    signUp: {
      async attempt(address) {
        const res = await signUps.consume(address, 1);
        return res.consumedPoints > signUpLimit ? seconds(res.msBeforeNext) : 0;
      },
    },
    invite: {
      async check(address) {
        const res = await inviteFailures.get(address);
        return res && res.consumedPoints >= INVITE_FAILURES_PER_ADDRESS ? seconds(res.msBeforeNext) : 0;
      },
      async failed(address) {
        await inviteFailures.consume(address, 1);
      },
    },
  };
}

/**
 * The one form of an email address that is stored, looked up and counted: Unicode NFKC, trimmed,
 * lower-cased by JavaScript. Look-ups compare the stored address's `lower()` with this form, so a
 * spelling that JavaScript and PostgreSQL fold differently (`İ`, U+0130) matches no account
 * instead of reaching one its guard does not cover; and the sign-in guard counts by the matched
 * user's id whenever there is one.
 */
export function canonicalEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}
