import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Database } from '../db/client';
import { checkReady } from '../db/migrate';
import type { RateLimits } from './ratelimit';
import { createRestHandler } from './rest/handler';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * One node:http server for everything: `/v1/*` goes straight to the REST handler
 * (trpc-to-openapi, built once), `/healthz` and `/readyz` are answered here, and the rest
 * (dashboard pages, /api/trpc, /api/auth) goes to Next's request handler when there is one.
 */
export function createAppServer(deps: { database: Database; limits: RateLimits; next?: Handler }) {
  const rest = createRestHandler({ db: deps.database.db, limits: deps.limits });
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(body));
  };

  return http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?')) {
      void rest(req, res);
    } else if (url === '/healthz') {
      json(res, 200, { status: 'ok' });
    } else if (url === '/readyz') {
      void checkReady(deps.database).then((r) => json(res, r.ok ? 200 : 503, r.ok ? { status: 'ready' } : { status: 'not_ready', reason: r.reason }));
    } else if (deps.next) {
      void deps.next(req, res);
    } else {
      json(res, 404, { error: 'not found' });
    }
  });
}
