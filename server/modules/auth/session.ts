import { getServerSession, type Session } from 'next-auth';
import type { Environment } from '../../../db/schema';
import { SCOPES } from '../keys/scopes';
import type { Actor } from '../actor';
import { authOptions } from './options';

// The signed-in dashboard user as the rest of the server sees them: an Actor.

/** The header (and cookie) value naming the dashboard's environment; anything else is live. */
export function parseEnvironment(value: string | null | undefined): Environment {
  return value === 'test' ? 'test' : 'live';
}

/** A signed-in user acts with every scope, in the environment the dashboard has selected. */
export function actorFromSession(session: Session | null, environment: Environment): Actor | null {
  if (!session?.userId || !session.workspaceId) return null;
  return {
    kind: 'user',
    userId: session.userId,
    sessionId: session.sessionId,
    workspaceId: session.workspaceId,
    environment,
    scopes: [...SCOPES],
  };
}

/** The current session in a server component, route handler or server action (null when signed out). */
export async function currentSession(): Promise<Session | null> {
  const session = await getServerSession(authOptions);
  return session?.userId ? session : null;
}
