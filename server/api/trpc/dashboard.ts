import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { nameLane } from '../../../db/lanes';
import type { Actor } from '../../modules/actor';
import { ApiError } from '../../platform/errors';
import { env } from '../../platform/env.js';
import { stampedClientAddress } from '../../platform/http/client-address-header';
import { jsonDepth, MAX_BODY_DEPTH } from '../../platform/http/exchange';
import { crossSiteReason } from '../../platform/http/same-origin';
import { newId } from '../../platform/ids';
import { log } from '../../platform/log';
import type { Db } from '../../../db/client';
import type { RateLimits } from '../../modules/ratelimit';
import type { Services } from '../../modules/runtime';
import { toTRPCError, type Context } from './init';
import { appRouter } from './router';

/** Procedures one dashboard request may batch (the client's link sends at most this many: providers.tsx). */
export const MAX_BATCH = 10;

/**
 * What the dashboard refuses before any procedure runs (docs/security.md, "Dashboard accounts"):
 *   - a change (any method but GET) sent by another origin's page (same-origin.ts): the session
 *     cookie rides along with a same-site page's POST;
 *   - a change whose body is not `application/json`: tRPC also takes `multipart/form-data` (a
 *     plain HTML form, sent cross-origin without a preflight) and `application/octet-stream`;
 *     the dashboard only ever sends JSON (tRPC answers other types 415 itself);
 *   - a query whose `input` nests deeper than a body may (MAX_BODY_DEPTH): the custom server
 *     counts the depth of bodies, but a GET's input is in its query string.
 */
function refusal(req: Request): ApiError | null {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const input = new URL(req.url).searchParams.get('input');
    return input !== null && jsonDepth(input) > MAX_BODY_DEPTH
      ? new ApiError('invalid_json', `The input is nested more than ${MAX_BODY_DEPTH} levels deep`, { param: 'input' })
      : null;
  }
  const crossSite = crossSiteReason(req.headers, { publicUrl: env.NEXTAUTH_URL, trustProxy: env.TRUST_PROXY });
  if (crossSite) return new ApiError('cross_site_request', `This change was sent from another site (${crossSite}); nothing was done`);
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    return new ApiError('unsupported_media_type', type ? `Unsupported content type '${type.slice(0, 100)}': send application/json` : 'Missing Content-Type: send application/json');
  }
  return null;
}

/**
 * The dashboard face of the router (/api/trpc, served by the node edge: api/http/dashboard-api.ts):
 * the caller `resolveActor` finds (the signed-in user, in the environment the dashboard sends in
 * `x-environment`), the client address the server stamped on the request, and the process's
 * database, services and rate limits (for mutations), given by the edge. A refusal's headers
 * (Retry-After, X-RateLimit-*) go on the answer. A request `refusal` names is answered with its
 * error for each procedure (tRPC's envelope, batches included) and runs none of them.
 */
export function createDashboardHandler(deps: { db: Db; limits: RateLimits; services: Services }, resolveActor: (req: Request) => Promise<Actor | null>) {
  return function handler(req: Request): Promise<Response> {
    const refused = refusal(req);
    return fetchRequestHandler({
      endpoint: '/api/trpc',
      req,
      router: appRouter,
      maxBatchSize: MAX_BATCH,
      async createContext(): Promise<Context> {
        if (refused) throw toTRPCError(refused);
        const found = await resolveActor(req);
        // From here its database calls wait in its workspace's line (db/lanes.ts).
        if (found) nameLane(`ws:${found.workspaceId}`);
        const requestId = newId('req');
        const clientAddress = stampedClientAddress(req.headers);
        // The actor carries where the request came from: the audit log records it (docs/audit.md).
        const request = { ip: clientAddress || null, userAgent: req.headers.get('user-agent'), requestId };
        const actor = found && { ...found, request };
        return {
          requestId,
          db: deps.db,
          services: deps.services,
          actor,
          clientAddress,
          request,
          limits: deps.limits,
        };
      },
      responseMeta({ errors }) {
        const headers: Record<string, string> = {};
        for (const error of errors) if (error.cause instanceof ApiError) Object.assign(headers, error.cause.headers);
        return { headers };
      },
      onError({ error, path, ctx }) {
        if (error.code === 'INTERNAL_SERVER_ERROR') {
          log.error({ requestId: ctx?.requestId, path, err: error.cause ?? error }, 'dashboard procedure failed');
        }
      },
    });
  };
}
