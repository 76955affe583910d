import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Session } from 'next-auth';
import type { Db } from '../../../db/client';
import type { RateLimits } from '../../modules/ratelimit';
import type { Services } from '../../modules/runtime';
import { ENVIRONMENT_COOKIE, ENVIRONMENT_HEADER } from '../../modules/auth/environment';
import { actorFromSession, cookiesOf, parseEnvironment } from '../../modules/auth/session';
import { dashboardStream } from '../dashboard-stream';
import { createDashboardHandler } from '../trpc/dashboard';

// The dashboard's API, served by the node edge like /v1 (no Next in between): its tRPC face at
// /api/trpc/* (server/api/trpc/dashboard.ts) and the live view of an execution at
// /api/dashboard/executions/:id/stream (server/api/dashboard-stream.ts). Both get the process's
// database, limits and services from the context the server was built with (processes/), and
// the signed-in user from `session`: next-auth's session of the request's cookies
// (modules/auth/session.ts `sessionOf`). next-auth's own routes and the pages stay in Next.

/** Reads the signed-in user's session from a request's headers (null: signed out). */
export type SessionReader = (headers: IncomingHttpHeaders) => Promise<Session | null>;

const TRPC = '/api/trpc';
const STREAM = /^\/api\/dashboard\/executions\/([^/?]+)\/stream\/?(?:\?|$)/;

/** Whether the dashboard API serves this path. */
export const isDashboardApi = (url: string) => url === TRPC || url.startsWith(`${TRPC}/`) || url.startsWith(`${TRPC}?`) || STREAM.test(url);

/** The sequence number to resume after: a non-negative integer, else 0 (from the start). */
function afterSeq(req: IncomingMessage, url: URL): number {
  const header = req.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('after') ?? '';
  return /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function createDashboardApi(deps: { db: Db; limits: RateLimits; services: Services; session: SessionReader }) {
  const trpc = createDashboardHandler(deps, async (req) => {
    const headers = Object.fromEntries(req.headers) as IncomingHttpHeaders;
    return actorFromSession(deps.db, await deps.session(headers), parseEnvironment(req.headers.get(ENVIRONMENT_HEADER)));
  });

  /** tRPC's fetch handler over the node request (its body already held and checked: `body`). */
  async function serveTrpc(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): Promise<void> {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const method = req.method ?? 'GET';
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, { method, headers, body: method === 'GET' || method === 'HEAD' || !body ? undefined : new Uint8Array(body) });
    const response = await trpc(request);
    res.statusCode = response.status;
    response.headers.forEach((v, k) => res.setHeader(k, v));
    if (!response.body) return void res.end();
    await new Promise<void>((resolve) => Readable.fromWeb(response.body as never).pipe(res).once('close', resolve));
  }

  /** EventSource cannot send headers: the environment comes as `?environment=` (else the dashboard's cookie), a resume as `Last-Event-ID` (or `?after=`). */
  async function serveStream(req: IncomingMessage, res: ServerResponse, executionId: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const environment = parseEnvironment(url.searchParams.get('environment') ?? cookiesOf(req.headers.cookie)[ENVIRONMENT_COOKIE]);
    const actor = await actorFromSession(deps.db, await deps.session(req.headers), environment);
    const { engine, streams } = deps.services;
    await dashboardStream(res, { db: deps.db, engine, streams, actor, executionId: decoded(executionId), afterSeq: afterSeq(req, url) });
  }

  return function serveDashboardApi(req: IncomingMessage, res: ServerResponse, body?: Buffer): Promise<void> {
    const stream = STREAM.exec(req.url ?? '');
    if (stream) {
      if (req.method !== 'GET') {
        res.writeHead(405, { Allow: 'GET' });
        return Promise.resolve(void res.end());
      }
      return serveStream(req, res, stream[1]!);
    }
    return serveTrpc(req, res, body);
  };
}
