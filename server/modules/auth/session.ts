import type { IncomingHttpHeaders } from 'node:http';
import { getServerSession, type NextAuthOptions, type Session } from 'next-auth';
import type { Environment } from '../../../db/schema';
import type { Db } from '../../../db/client';
import { memberOf } from './members';
import { GRANTABLE } from '../vocabulary/roles';
import type { UserActor } from '../actor';

// The signed-in dashboard user as the rest of the server sees them: an Actor.

/** The header (and cookie) value naming the dashboard's environment; anything else is live. */
export function parseEnvironment(value: string | null | undefined): Environment {
  return value === 'test' ? 'test' : 'live';
}

/**
 * A signed-in user, in the workspace their dashboard shows (the one they chose, else their oldest)
 * with their role there, read now (members.ts `memberOf`: a role change or a removal applies to
 * the next request), in the environment the dashboard has selected. Their `scopes` are those
 * their role may put on a key (roles.ts `GRANTABLE`). Null: signed out, or a member of nothing.
 */
export async function actorFromSession(db: Db, session: Session | null, environment: Environment): Promise<UserActor | null> {
  if (!session?.userId) return null;
  const member = await memberOf(db, session.userId);
  if (!member) return null;
  return {
    kind: 'user',
    userId: session.userId,
    role: member.role,
    sessionId: session.sessionId,
    workspaceId: member.workspaceId,
    environment,
    scopes: [...GRANTABLE[member.role]],
  };
}

/** The cookies of a request's `Cookie` header, by name (the first of a repeated name). */
export function cookiesOf(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (name in out) continue;
    const raw = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}

/**
 * The session of a request the node edge serves (null when signed out or ended): next-auth's
 * node form of `getServerSession`, given the request's headers and cookies. Like the form Next's
 * pages use, it writes no cookie back (a session is refreshed by next-auth's own routes). Without
 * NEXTAUTH_URL next-auth takes the origin, and so the session cookie's name (`__Secure-` on
 * https), from `x-forwarded-proto` and `x-forwarded-host`, defaulting to https: they are filled in
 * as Next's server fills them in for the pages (the socket's protocol, the Host header) when the
 * request has none.
 */
export async function sessionOf(options: NextAuthOptions, headers: IncomingHttpHeaders): Promise<Session | null> {
  const forwarded = { ...headers, 'x-forwarded-proto': headers['x-forwarded-proto'] ?? 'http', 'x-forwarded-host': headers['x-forwarded-host'] ?? headers.host };
  const req = { headers: forwarded, cookies: cookiesOf(headers.cookie) };
  const res = { getHeader() {}, setCookie() {}, setHeader() {} };
  const session = await getServerSession(req as never, res as never, options);
  return session?.userId ? session : null;
}
