import { auditAccount } from '../audit/record';
import { log } from '../../platform/log';
import { eq } from 'drizzle-orm';
import type { NextAuthOptions } from 'next-auth';
import credentialsModule from 'next-auth/providers/credentials';
import githubModule from 'next-auth/providers/github';
import type { Db } from '../../../db/client';
import { users } from '../../../db/schema';
import { env } from '../../platform/env.js';
import { stampedClientAddress } from '../../platform/http/client-address-header';
import { safeCallbackPath } from './callback-path';
import type { AuthGuards } from './guards';
import { endSession, isSessionActive, SESSION_MAX_AGE_SECONDS, startSession } from './sessions';
import { signUpRefusal } from './signup';
import { TOO_MANY_SIGN_IN_ATTEMPTS } from './signin-errors';
import { findByEmail, upsertGithubUser, verifyCredentials } from './users';

// Dashboard sign-in (next-auth v4, JWT sessions). The session carries the user's id and
// workspace; everything else is read from the database when needed. The options are built from
// what they need (`createAuthOptions`): by the node edge from its process context, and for Next's
// own routes and pages from the one slot Next's module copies share (server/api/next-handle.ts).

/** What sign-in and the session callbacks use of their process. */
export interface AuthDeps {
  db(): Promise<Db> | Db;
  /** The sign-in attempt guard (absent: not limited, as in a process with no rate limits yet). */
  signIn(): AuthGuards['signIn'] | undefined;
}

declare module 'next-auth' {
  interface User {
    workspaceId?: string;
  }
  interface Session {
    userId: string;
    workspaceId: string;
    sessionId: string;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    userId?: string;
    workspaceId?: string;
    /** The user_sessions row this token stands for (sessions.ts). */
    sid?: string;
  }
}

// next-auth's providers are CommonJS: Next's bundler hands us the function, plain Node (the
// tests, the CLI) the module object with the function as `default`.
const interop = <T>(m: T): T => (m as { default?: T }).default ?? m;
const CredentialsProvider = interop(credentialsModule);
const GitHubProvider = interop(githubModule);

// next-auth v4 takes its origin (redirects, callback URLs) from NEXTAUTH_URL, or from the
// request's Host / X-Forwarded-Host when AUTH_TRUST_HOST is set. Without either it assumes
// http://localhost:3000, which is wrong behind our custom server on any other port or host.
if (!process.env.NEXTAUTH_URL && !process.env.AUTH_TRUST_HOST) process.env.AUTH_TRUST_HOST = 'true';

export const githubEnabled = Boolean(env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET);

interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

// Accounts are matched by email, so only a verified GitHub address may be used: the primary
// one if verified, else any verified one. None: the sign-in is refused (callbacks.signIn).
const github = () =>
  GitHubProvider({
    clientId: env.AUTH_GITHUB_ID!,
    clientSecret: env.AUTH_GITHUB_SECRET!,
    userinfo: {
      url: 'https://api.github.com/user',
      async request({ client, tokens }) {
        const profile = await client.userinfo(tokens.access_token!);
        const res = await fetch('https://api.github.com/user/emails', {
          headers: { Authorization: `Bearer ${tokens.access_token}`, Accept: 'application/vnd.github+json' },
        });
        const emails = res.ok ? ((await res.json()) as GithubEmail[]) : [];
        const verified = emails.filter((e) => e.verified);
        return { ...profile, email: (verified.find((e) => e.primary) ?? verified[0])?.email };
      },
    },
  });

const credentials = (deps: AuthDeps) =>
  CredentialsProvider({
  id: 'credentials',
  name: 'Email and password',
  credentials: {
    email: { label: 'Email', type: 'email' },
    password: { label: 'Password', type: 'password' },
  },
  async authorize(input, req) {
    const email = input?.email?.trim();
    const password = input?.password;
    if (!email || !password || email.length > 254 || password.length > 200) return null;
    const guard = deps.signIn();
    const address = stampedClientAddress(req?.headers ?? {});
    const db = await deps.db();
    // The attempt is spent before the password is checked (guards.ts), keyed by the matched user.
    const check = await verifyCredentials(db, email, password, (account) => guard?.attempt(account, address) ?? Promise.resolve(0));
    if (!check.ok && check.blockedFor) throw new Error(TOO_MANY_SIGN_IN_ATTEMPTS);
    // Every sign-in and every failed one of an account is in its workspaces' audit logs (docs/audit.md);
    // a failure for an address with no account belongs to no one: the process log only.
    const request = { ip: address || null, userAgent: headerOf(req?.headers, 'user-agent'), requestId: null };
    const userId = check.ok ? check.member.userId : check.account.startsWith('usr_') ? check.account : null;
    if (userId) await auditAccount(db, { kind: 'user', userId, request }, userId, { action: check.ok ? 'user.signed_in' : 'user.sign_in_failed', target: { type: 'user', id: userId } });
    else log.info({ address }, 'sign-in failed for an address with no account');
    if (check.ok) {
      await guard?.succeeded(check.account, address);
      return { id: check.member.userId, email: check.member.email, name: check.member.name, workspaceId: check.member.workspaceId };
    }
    return null;
  },
});

/** next-auth's options over `deps`. */
export const createAuthOptions = (deps: AuthDeps): NextAuthOptions => ({
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: '/signin', error: '/signin' },
  providers: githubEnabled ? [credentials(deps), github()] : [credentials(deps)],
  callbacks: {
    // Where next-auth sends the browser after signing in or out: a path on this site only.
    redirect({ url, baseUrl }) {
      const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) || '/' : url;
      return `${baseUrl}${safeCallbackPath(path, '/dashboard/keys')}`;
    },
    // GitHub accounts without a verified email cannot be matched to (or create) a user.
    async signIn({ account, user }) {
      if (account?.provider !== 'github') return true;
      if (!user.email) return '/signin?error=GithubEmail';
      // Never onto an account someone registered with this address (users.ts upsertGithubUser).
      const db = await deps.db();
      const [byGithub, byEmail] = await Promise.all([
        db.select({ id: users.id }).from(users).where(eq(users.githubId, account.providerAccountId)).then((r) => r[0]),
        findByEmail(db, user.email),
      ]);
      if (!byGithub && byEmail) return '/signin?error=OAuthAccountNotLinked';
      // A new account is a sign-up (SIGNUP_MODE, signup.ts); upsertGithubUser decides again under its lock.
      const refusal = byGithub ? null : await signUpRefusal(db, { email: user.email, verified: true });
      if (refusal) return `/signin?error=${refusal === 'closed' ? 'SignupClosed' : 'SignupByInvitation'}`;
      return true;
    },
    async jwt({ token, user, account }) {
      const db = await deps.db();
      if (!user) {
        // Every read of the session: its row must still be active (sign-out, sign-out everywhere
        // and password changes end it in every process at once).
        if (token.sid && token.userId && (await isSessionActive(db, token.sid, token.userId))) return token;
        return {};
      }
      if (account?.provider === 'github' && user.email) {
        const member = await upsertGithubUser(db, {
          githubId: account.providerAccountId,
          email: user.email,
          name: user.name ?? null,
        });
        token.userId = member.userId;
        token.workspaceId = member.workspaceId;
        token.email = member.email;
        token.name = member.name;
        await auditAccount(db, { kind: 'user', userId: member.userId }, member.userId, { action: 'user.signed_in', target: { type: 'user', id: member.userId }, changes: { provider: [null, 'github'] } });
      } else if (user.workspaceId) {
        token.userId = user.id;
        token.workspaceId = user.workspaceId;
      }
      if (token.userId) token.sid = await startSession(db, token.userId);
      return token;
    },
    session({ session, token }) {
      if (token.userId && token.workspaceId && token.sid) {
        session.userId = token.userId;
        session.workspaceId = token.workspaceId;
        session.sessionId = token.sid;
      }
      return session;
    },
  },
  events: {
    async signOut({ token }) {
      if (token?.sid) await endSession(await deps.db(), token.sid);
    },
  },
});

/** A request header's value (next-auth hands `authorize` the headers as a plain object). */
function headerOf(headers: unknown, name: string): string | null {
  const value = headers && typeof headers === 'object' ? (headers as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : null;
}
