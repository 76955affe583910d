import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { env } from '../../platform/env.js';
import { answerClientError, refusedBefore } from '../../platform/http/client-error';
import { isTrustedProxy } from '../../platform/http/client-address';
import { capConnections } from '../../platform/http/connections';
import { SERVER_TIMEOUTS, setSecurityHeaders } from '../../platform/http/exchange';

// The node:http server with its limits and security headers, apart from what serves the
// requests: `npm start` listens with it before the rest of the code is loaded and the database
// is open (server/processes/main.ts), answering with starting.ts until it is handed the app's
// handler (server.ts). Nothing here loads more than the HTTP basics, so the port answers within
// a second or two of the process's start.

type Handle = (req: IncomingMessage, res: ServerResponse) => void;

export const isApiPath = (url: string) =>
  url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?') || url.startsWith('/api/') || url === '/healthz' || url === '/readyz';

export interface Listener {
  server: http.Server;
  /** From now on, requests go to `handle`. */
  serve(handle: Handle): void;
}

/**
 * A server answering with `handle` (until `serve` replaces it). Slow or idle clients may not hold
 * a connection open (platform/http/exchange.ts), nor one address many of them
 * (platform/http/connections.ts); a request Node's parser refuses gets our error envelope.
 */
export function createListener(handle: Handle): Listener {
  let current = handle;
  const server = http.createServer(SERVER_TIMEOUTS, (req, res) => {
    // Completed after we answered it 408 (client-error.ts): that answer said nothing was done.
    if (refusedBefore(req.socket)) return void req.socket.destroy();
    setSecurityHeaders(res, isApiPath(req.url ?? '/'));
    // A handler writing after we refused a request must not crash the process.
    res.on('error', () => {});
    current(req, res);
  });
  // MAX_CONNECTIONS per process, MAX_CONNECTIONS_PER_ADDRESS of them per client address.
  capConnections(server, { max: env.MAX_CONNECTIONS_PER_ADDRESS, exempt: (peer) => isTrustedProxy(peer) });
  server.on('clientError', answerClientError);
  return {
    server,
    serve(next) {
      current = next;
    },
  };
}
