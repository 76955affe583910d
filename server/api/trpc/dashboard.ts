import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Actor } from '../../modules/actor';
import { ApiError } from '../../platform/errors';
import { stampedClientAddress } from '../../platform/http/client-address-header';
import { newId } from '../../platform/ids';
import { log } from '../../platform/log';
import { getRuntime } from '../../modules/runtime';
import type { Context } from './init';
import { appRouter } from './router';

/** Procedures one dashboard request may batch (the client's link sends at most this many: providers.tsx). */
export const MAX_BATCH = 10;

/**
 * The dashboard face of the router (app/api/trpc): the caller `resolveActor` finds (the signed-in
 * user, in the environment the dashboard sends in `x-environment`), the client address the
 * custom server stamped on the request, and the process's rate limits for mutations. A refusal's
 * headers (Retry-After, X-RateLimit-*) go on the answer.
 */
export function createDashboardHandler(resolveActor: (req: Request) => Promise<Actor | null>) {
  return function handler(req: Request): Promise<Response> {
    return fetchRequestHandler({
      endpoint: '/api/trpc',
      req,
      router: appRouter,
      maxBatchSize: MAX_BATCH,
      async createContext(): Promise<Context> {
        const runtime = getRuntime();
        return {
          requestId: newId('req'),
          db: runtime.database.db,
          services: runtime,
          actor: await resolveActor(req),
          clientAddress: stampedClientAddress(req.headers),
          limits: runtime.limits,
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
