import type { Session } from 'next-auth';
import type { Environment } from '../db/schema';
import type { SessionReader } from '../server/api/http/dashboard-api';
import type { TestServer, Workspace } from './harness';

// The dashboard's API over real HTTP without a Next build or a sign-in: the server serves
// /api/trpc and the dashboard's event streams itself (server/api/http/dashboard-api.ts), and the
// test stands in only for next-auth's session (`startServer({ dashboardSession: testSessions() })`):
// the signed-in user is named by the test header `x-test-user` (user id, workspace id and,
// optionally, the session id), where the server would read the session cookie.

export const USER_HEADER = 'x-test-user';

export function testSessions(): SessionReader {
  return async (headers) => {
    const raw = headers[USER_HEADER];
    const [userId, workspaceId, sessionId] = (Array.isArray(raw) ? raw[0]! : (raw ?? '')).split(' ');
    if (!userId || !workspaceId) return null;
    return { userId, workspaceId, sessionId: sessionId ?? '', expires: new Date(Date.now() + 3_600_000).toISOString() } satisfies Session;
  };
}

export interface TrpcError {
  message: string;
  data: { code: string; httpStatus: number; apiError: { type: string; code: string; param: string | null } | null };
}

export interface TrpcResponse<T> {
  status: number;
  headers: Headers;
  result?: T;
  error?: TrpcError;
}

/** Calls one procedure as the workspace's owner in the dashboard (query: GET, mutation: POST). */
export async function dashboardCall<T = unknown>(
  api: TestServer,
  as: Workspace,
  kind: 'query' | 'mutation',
  path: string,
  input?: unknown,
  opts: { environment?: Environment; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<TrpcResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers, [USER_HEADER]: `${as.userId} ${as.id}`, 'x-environment': opts.environment ?? 'test' };
  const url = `${api.url}/api/trpc/${path}`;
  const res =
    kind === 'query'
      ? await fetch(input === undefined ? url : `${url}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : await fetch(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: opts.rawBody ?? JSON.stringify(input ?? null),
        });
  const body = (await res.json()) as { result?: { data: T }; error?: TrpcError };
  return { status: res.status, headers: res.headers, result: body.result?.data, error: body.error };
}
