import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getDatabase } from '@/server/runtime';
import { actorFromSession, currentSession, parseEnvironment } from '@/server/auth/session';
import { stampedClientAddress } from '@/server/http/client-address-header';
import { newId } from '@/server/ids';
import { log } from '@/server/log';
import type { Context } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';

/** Procedures one dashboard request may batch (the client's link sends at most this many: providers.tsx). */
const MAX_BATCH = 10;

// The dashboard face of the router: the signed-in user, in the environment the dashboard
// sends in `x-environment` (live unless it says test), and the client address the custom
// server stamped on the request.
async function createContext(req: Request): Promise<Context> {
  const [{ db }, session] = await Promise.all([getDatabase(), currentSession()]);
  const environment = parseEnvironment(req.headers.get('x-environment'));
  return {
    requestId: newId('req'),
    db,
    actor: actorFromSession(session, environment),
    clientAddress: stampedClientAddress(req.headers),
  };
}

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH,
    createContext: () => createContext(req),
    onError({ error, path, ctx }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        log.error({ requestId: ctx?.requestId, path, err: error.cause ?? error }, 'dashboard procedure failed');
      }
    },
  });
}

export { handler as GET, handler as POST };
