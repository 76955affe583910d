import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Environment } from '../db/schema';
import type { TestServer, Workspace } from './harness';

// The dashboard's tRPC face over real HTTP without a Next build: a stand-in for Next's request
// handler behind the custom server (`startServer({ next: dashboardStandIn() })`) runs the same
// handler app/api/trpc does (server/api/trpc/dashboard.ts). Only the session is stood in for: the
// signed-in user is named by the test header `x-test-user` (user id and workspace id), where
// Next would read the session cookie.

const USER_HEADER = 'x-test-user';

export function dashboardStandIn() {
  let handler: ((req: Request) => Promise<Response>) | undefined;
  // Loaded on first use: server modules may only load once the harness has set the environment.
  const load = async () => {
    if (handler) return handler;
    const { createDashboardHandler } = await import('../server/api/trpc/dashboard');
    const { SCOPES } = await import('../server/modules/keys/scopes');
    const { parseEnvironment } = await import('../server/modules/auth/session');
    handler = createDashboardHandler(async (req) => {
      const [userId, workspaceId] = (req.headers.get(USER_HEADER) ?? '').split(' ');
      if (!userId || !workspaceId) return null;
      return { kind: 'user', userId, workspaceId, environment: parseEnvironment(req.headers.get('x-environment')), scopes: [...SCOPES] };
    });
    return handler;
  };

  return function next(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
        const response = await (await load())(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }));
        res.statusCode = response.status;
        response.headers.forEach((v, k) => res.setHeader(k, v));
        res.end(Buffer.from(await response.arrayBuffer()));
      })().catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
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
  opts: { environment?: Environment; rawBody?: string } = {},
): Promise<TrpcResponse<T>> {
  const headers: Record<string, string> = { [USER_HEADER]: `${as.userId} ${as.id}`, 'x-environment': opts.environment ?? 'test' };
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
