import type { CounterFactory } from '../../platform/ratelimit/store';

// Brute-force guards of the dashboard's sign-in and sign-up, counted in the rate-limit store
// (memory when embedded, Redis or PostgreSQL when scaled out), so every process shares them.
//
// An attempt is spent *before* the password is checked: the counter's increment is atomic, so
// 200 concurrent guesses get exactly the allowed number of checks, never more. A correct
// password gives the attempt back.

/** 10 wrong passwords for one account within 15 minutes lock its password sign-in for the rest of that window. */
export const SIGN_IN_FAILURES_PER_ACCOUNT = 10;
/** One client address may fail this often in 15 minutes, whichever accounts it tries (so it cannot lock out everyone). */
export const SIGN_IN_FAILURES_PER_ADDRESS = 30;
const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** New accounts per client address per hour, unless configured (RATE_LIMIT_SIGNUPS_PER_HOUR). */
export const SIGN_UPS_PER_ADDRESS = 10;
const SIGN_UP_WINDOW_SECONDS = 60 * 60;

export interface AuthGuards {
  signIn: {
    /**
     * Spends one attempt for `account` (the matched user's id, or the canonical email when no
     * user matches) and for `address`. Returns 0 when the password may be checked, else the
     * seconds to wait.
     */
    attempt(account: string, address: string): Promise<number>;
    /** The password was right: the attempt is given back and the account's failures forgotten. */
    succeeded(account: string, address: string): Promise<void>;
  };
  signUp: {
    /** Spends one sign-up for `address`. Returns 0 when allowed, else the seconds to wait. */
    attempt(address: string): Promise<number>;
  };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function createAuthGuards(counter: CounterFactory, opts: { signUpsPerHour?: number } = {}): AuthGuards {
  const signUpLimit = opts.signUpsPerHour ?? SIGN_UPS_PER_ADDRESS;
  const perAccount = counter('rl:signin', SIGN_IN_WINDOW_SECONDS);
  const perAddress = counter('rl:signin:addr', SIGN_IN_WINDOW_SECONDS);
  const signUps = counter('rl:signup:addr', SIGN_UP_WINDOW_SECONDS);

  return {
    signIn: {
      async attempt(account, address) {
        const [byAddress, byAccount] = await Promise.all([perAddress.consume(address, 1), perAccount.consume(account, 1)]);
        const waits = [];
        if (byAddress.consumedPoints > SIGN_IN_FAILURES_PER_ADDRESS) waits.push(byAddress.msBeforeNext);
        if (byAccount.consumedPoints > SIGN_IN_FAILURES_PER_ACCOUNT) waits.push(byAccount.msBeforeNext);
        return waits.length === 0 ? 0 : seconds(Math.max(...waits));
      },
      async succeeded(account, address) {
        await Promise.all([perAccount.delete(account), perAddress.reward(address, 1)]);
      },
    },
    signUp: {
      async attempt(address) {
        const res = await signUps.consume(address, 1);
        return res.consumedPoints > signUpLimit ? seconds(res.msBeforeNext) : 0;
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
