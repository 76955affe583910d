import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../../db/client';
import { ApiError, internalError } from '../errors';
import { replayExecution } from '../executions/routes';
import { closeAfterResponse, hasBody } from '../http/exchange';
import { sendError } from '../http/send';
import { newId } from '../ids';
import type { KeyOwner, VerifiedKey } from '../keys/service';
import { createUnknownKeys } from '../keys/unknown-keys';
import { log } from '../log';
import type { RateLimits } from '../ratelimit';
import { appRouter } from '../trpc/router';
import type { RequestUsage } from '../usage/requests';
import { parseQuery, readJsonBody, type Query } from './body';
import { createProcedureBridge } from './bridge';
import { idempotencyKeyOf, withIdempotency } from './idempotency';
import { RAW_ROUTES } from './raw-routes';
import { buildRouteTable, matchRoute, type RestRoute } from './routes';
import { authenticate, bearer, checkScope, createAddressGuard, identify, limitKey } from './steps';

// The REST face: /v1/* straight from node:http (no Next in between). Checks run in the order
// DESIGN.md 3.1 gives: route → auth → rate limit → scope → input → lookup; each is a named
// step (steps.ts), then the route's target runs: a procedure through trpc-to-openapi
// (bridge.ts) or a raw route that writes its own response (raw-routes.ts).

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** The key a request identified: valid (`key`), or revoked or expired (`owner`). */
interface KeyRef {
  key?: VerifiedKey;
  owner?: KeyOwner;
}

export function createRestHandler(deps: { db: Db; limits: RateLimits; usage?: RequestUsage }) {
  const { db, limits } = deps;
  const routes = buildRouteTable(appRouter, RAW_ROUTES);
  const bridge = createProcedureBridge(routes);
  const addresses = createAddressGuard(limits);
  const unknownKeys = createUnknownKeys();

  /** Input of a route: the query (null-prototype), and the JSON body of POST/PATCH (unless read already). */
  async function readInput(
    req: IncomingMessage,
    route: RestRoute,
    body?: Record<string, unknown>,
  ): Promise<{ query: Query; body?: Record<string, unknown> }> {
    const query = parseQuery(req.url ?? '');
    if (!BODY_METHODS.has(route.method)) return { query };
    // Parameters of POST and PATCH travel in the body; a query string there would never be read.
    const [param] = Object.keys(query);
    if (param !== undefined) {
      throw new ApiError('unknown_parameter', `Unknown query parameter '${param}': send parameters in the JSON body`, { param });
    }
    return { query, body: body ?? (await readJsonBody(req)) };
  }

  async function run(req: IncomingMessage, res: ServerResponse, requestId: string, keyRef: KeyRef) {
    const path = (req.url ?? '/').split('?')[0]!;
    const match = matchRoute(routes, req.method ?? 'GET', path);
    if (match.kind !== 'found' || !match.route.auth) {
      // Unknown routes, 405s and the public document: the route answers first (the order above),
      // but the request is still counted: against its key's plan when it carries a valid key,
      // against its address otherwise. Over either limit, 429 instead.
      const identity = await identify(req, db, unknownKeys);
      if ('key' in identity) keyRef.key = identity.key;
      else keyRef.owner = identity.owner;
      const refused = 'key' in identity ? await limitKey(res, limits, identity.key) : await addresses.check(req, res);
      if (refused) throw refused;
      if (match.kind === 'method_not_allowed') {
        throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${path.slice(0, 200)}`, {
          headers: { Allow: match.allow.join(', ') },
        });
      }
      if (match.kind === 'not_found') throw new ApiError('route_not_found', `Unknown route: ${req.method} ${path.slice(0, 200)}`);
    }
    if (match.kind !== 'found') return;
    const { route, params } = match;
    let key: VerifiedKey | null = null;
    if (route.auth) {
      const auth = await authenticate(req, res, db, addresses, unknownKeys);
      if ('error' in auth) {
        keyRef.owner = auth.owner;
        throw auth.error;
      }
      key = keyRef.key = auth.key;
      const refused = (await limitKey(res, limits, key)) ?? checkScope(route, key);
      if (refused) throw refused;
    }
    const dispatch = async (preread?: Record<string, unknown>) => {
      if (route.target.kind === 'raw') {
        const query = parseQuery(req.url ?? '');
        let body: Promise<Record<string, unknown>> | undefined = preread ? Promise.resolve(preread) : undefined;
        return route.target.handle({ req, res, requestId, db, key, params, query, body: () => (body ??= readJsonBody(req)) });
      }
      const input = await readInput(req, route, preread);
      await bridge(req, res, { requestId, db, actor: key }, input);
    };
    // Idempotency-Key (POST): checked after the scope, before the input (DESIGN.md 3.3).
    const idempotencyKey = key && route.method === 'POST' ? idempotencyKeyOf(req) : undefined;
    if (idempotencyKey === undefined) return dispatch();
    const body = await readJsonBody(req);
    const secret = bearer(req.headers.authorization)!;
    await withIdempotency({ req, res, requestId, db, key: key!, secret, idempotencyKey, path, body, replayMarker: replayExecution }, () => dispatch(body));
  }

  return async function handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newId('req');
    const started = performance.now();
    const keyRef: KeyRef = {};
    res.setHeader('X-Request-Id', requestId);
    // Usage analytics: every answered request of an identified key, once it has ended (a stream
    // when it closes), in this process's buffer; nothing is written on the request path.
    if (deps.usage) {
      const usage = deps.usage;
      res.once('close', () => {
        const owner = keyRef.key ?? keyRef.owner;
        if (owner && res.headersSent) usage.record(owner, res.statusCode, performance.now() - started);
      });
    }
    res.once('finish', () => {
      log.info(
        {
          requestId,
          method: req.method,
          path: (req.url ?? '/').split('?')[0]!.slice(0, 200),
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          keyId: keyRef.key?.keyId,
        },
        'request',
      );
    });
    try {
      await run(req, res, requestId, keyRef);
    } catch (err) {
      if (!(err instanceof ApiError)) log.error({ requestId, err }, 'unhandled error in REST handler');
      if (res.headersSent) return void res.destroy();
      // Refused before its body was read: answer, then close instead of reading the rest.
      if (hasBody(req)) closeAfterResponse(req, res);
      sendError(res, requestId, err instanceof ApiError ? err : internalError());
    }
  };
}
