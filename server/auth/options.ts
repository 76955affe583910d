import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import GitHubProvider from 'next-auth/providers/github';
import { getDatabase } from '../../db/client';
import { env } from '../env.js';
import { getRateLimits } from '../ratelimit';
import { TOO_MANY_SIGN_IN_ATTEMPTS } from './signin-errors';
import { upsertGithubUser, verifyCredentials } from './users';

// Dashboard sign-in (next-auth v4, JWT sessions). The session carries the user's id and
// workspace; everything else is read from the database when needed.

declare module 'next-auth' {
  interface User {
    workspaceId?: string;
  }
  interface Session {
    userId: string;
    workspaceId: string;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    userId?: string;
    workspaceId?: string;
  }
}

// next-auth v4 takes its origin (redirects, callback URLs) from NEXTAUTH_URL, or from the
// request's Host / X-Forwarded-Host when AUTH_TRUST_HOST is set. Without either it assumes
// http://localhost:3000, which is wrong behind our custom server on any other port or host.
if (!process.env.NEXTAUTH_URL && !process.env.AUTH_TRUST_HOST) process.env.AUTH_TRUST_HOST = 'true';

export const githubEnabled = Boolean(env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET);

const credentials = CredentialsProvider({
  id: 'credentials',
  name: 'Email and password',
  credentials: {
    email: { label: 'Email', type: 'email' },
    password: { label: 'Password', type: 'password' },
  },
  async authorize(input) {
    const email = input?.email?.trim();
    const password = input?.password;
    if (!email || !password) return null;
    const guard = getRateLimits()?.signIn;
    if (guard && (await guard.blockedFor(email)) > 0) throw new Error(TOO_MANY_SIGN_IN_ATTEMPTS);
    const { db } = await getDatabase();
    const member = await verifyCredentials(db, email, password);
    if (!member) {
      await guard?.failed(email);
      return null;
    }
    await guard?.succeeded(email);
    return { id: member.userId, email: member.email, name: member.name, workspaceId: member.workspaceId };
  },
});

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

export const authOptions: NextAuthOptions = {
  session: { strategy: 'jwt', maxAge: 30 * 24 * 60 * 60 },
  pages: { signIn: '/signin', error: '/signin' },
  providers: githubEnabled ? [credentials, github()] : [credentials],
  callbacks: {
    // GitHub accounts without a verified email cannot be matched to (or create) a user.
    signIn({ account, user }) {
      if (account?.provider === 'github' && !user.email) return '/signin?error=GithubEmail';
      return true;
    },
    async jwt({ token, user, account }) {
      if (account?.provider === 'github' && user?.email) {
        const { db } = await getDatabase();
        const member = await upsertGithubUser(db, {
          githubId: account.providerAccountId,
          email: user.email,
          name: user.name ?? null,
        });
        token.userId = member.userId;
        token.workspaceId = member.workspaceId;
        token.email = member.email;
        token.name = member.name;
      } else if (user?.workspaceId) {
        token.userId = user.id;
        token.workspaceId = user.workspaceId;
      }
      return token;
    },
    session({ session, token }) {
      if (token.userId && token.workspaceId) {
        session.userId = token.userId;
        session.workspaceId = token.workspaceId;
      }
      return session;
    },
  },
};
