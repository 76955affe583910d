import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Database } from '../../../db/client';
import { inLane } from '../../../db/lanes';
import { checkReady } from '../../../db/migrate';
import { ApiError, internalError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import type { RateLimits } from '../../modules/ratelimit';
import { createRestHandler } from '../rest/handler';
import { createDashboardApi, isDashboardApi, type SessionReader } from './dashboard-api';
import { log } from '../../platform/log';
import type { Services } from '../../modules/runtime';
import type { RequestUsage } from '../../modules/usage/requests';
import { CLIENT_ADDRESS_HEADER } from '../../platform/http/client-address-header';
import { clientAddress } from '../../platform/http/client-address';
import { MAX_CONNECTIONS } from '../../platform/http/connections';
import { closeAfterResponse, hasBody, holdBody, jsonDepth, MAX_BODY_BYTES, MAX_BODY_DEPTH, SERVER_TIMEOUTS } from '../../platform/http/exchange';
import { sendError, sendJson } from '../../platform/http/send';
import { createListener } from './listener';
import { answerHealth, answerStarting, startingMessage, type Dashboard } from './starting';

// Slow or idle clients may not hold a connection open (headers within 5 s, a whole request
// within 30 s: platform/http/exchange.ts), nor one address many of them (platform/http/connections.ts).
export { MAX_CONNECTIONS, SERVER_TIMEOUTS };

type BodyHandler = (req: IncomingMessage, res: ServerResponse, body?: Buffer) => Promise<void> | void;

type AppDeps = { database: Database; limits: RateLimits; usage?: RequestUsage; dashboard?: Dashboard; session?: SessionReader } & Services;

/** One node:http server for everything (listener.ts), serving with createAppHandler's handler. */
export function createAppServer(deps: AppDeps) {
  return createListener(createAppHandler(deps)).server;
}

/**
 * What serves every request of the node:http server: `/v1/*` goes straight to the REST handler
 * (api/rest/handler.ts, built once), `/healthz` and `/readyz` are answered here, the dashboard's
 * API (/api/trpc, its event streams: dashboard-api.ts) by the handler built here with this
 * process's context when the server has a `session` reader, and the rest (pages, /api/auth) goes
 * to Next's request handler when there is one. The dashboard's requests get the same body limits
 * as /v1 and the client's address (which Next cannot see). While the dashboard is still starting
 * (`dashboard.starting`), its pages and next-auth's routes say so (starting.ts).
 */
export function createAppHandler(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const rest = createRestHandler({ db: deps.database.db, limits: deps.limits, usage: deps.usage, services: deps });
  const dashboardApi = deps.session ? createDashboardApi({ db: deps.database.db, limits: deps.limits, services: deps, session: deps.session }) : undefined;
  const serveDashboardApi: BodyHandler = (req, res, body) => {
    void dashboardApi!(req, res, body).catch((err: unknown) => {
      log.error({ err, path: (req.url ?? '').split('?')[0] }, 'dashboard API request failed');
      if (!res.headersSent) sendError(res, newId('req'), internalError());
      else res.destroy();
    });
  };

  /** Hands the request on once its body (if any) is held and within the limits; refuses it otherwise. */
  const withBody = (handler: BodyHandler, req: IncomingMessage, res: ServerResponse) => {
    req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req);
    if (!hasBody(req)) return void handler(req, res);
    const refuse = (err: ApiError) => {
      const requestId = newId('req');
      closeAfterResponse(req, res);
      res.setHeader('X-Request-Id', requestId);
      sendError(res, requestId, err);
    };
    const tooLarge = () => new ApiError('request_too_large', 'The request body is larger than 1 MiB');
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuse(tooLarge());
    holdBody(req).then(
      (body) => {
        const json = (req.headers['content-type'] ?? '').toLowerCase().includes('json');
        if (json && jsonDepth(body.toString('utf8')) > MAX_BODY_DEPTH) {
          return refuse(new ApiError('invalid_json', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep`));
        }
        void handler(req, res, body);
      },
      (err: Error) => (err.message === 'too_large' ? refuse(tooLarge()) : req.socket.destroy()),
    );
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?')) {
      void rest(req, res);
    } else if (url === '/healthz') {
      answerHealth(res, deps.dashboard);
    } else if (url === '/readyz') {
      void checkReady(deps.database).then((r) => {
        const starting = deps.dashboard?.starting;
        if (!r.ok) return sendJson(res, 503, { status: 'not_ready', reason: r.reason });
        if (starting) return sendJson(res, 503, { status: 'not_ready', reason: startingMessage(starting.phase) });
        sendJson(res, 200, { status: 'ready' });
      });
    } else if (dashboardApi && isDashboardApi(url)) {
      withBody(serveDashboardApi, req, res);
    } else if (deps.dashboard?.handler) {
      const next = deps.dashboard.handler;
      // Next's handler takes (req, res, parsedUrl): it reads the body from `req` itself.
      withBody((q, s) => next(q, s), req, res);
    } else if (deps.dashboard?.starting) {
      answerStarting(req, res, deps.dashboard.starting);
    } else {
      sendJson(res, 404, { error: 'not found' });
    }
  };
  // Each request's database calls wait in a line of their own on the embedded database: its
  // address's until its workspace is known (db/lanes.ts).
  return (req, res) => inLane(`addr:${req.socket.remoteAddress ?? ''}`, () => handle(req, res));
}
