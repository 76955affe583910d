import { parseTraceparent } from '../../modules/vocabulary/trace-ids';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../../../db/client';
import { ApiError } from '../../platform/errors';
import { replayExecution } from './execution-routes';
import { clientAddress } from '../../platform/http/client-address';
import { closeAfterResponse, hasBody } from '../../platform/http/exchange';
import { newId } from '../../platform/ids';
import type { KeyOwner, VerifiedKey } from '../../modules/keys/service';
import { createUnknownKeys } from '../../modules/keys/unknown-keys';
import { log } from '../../platform/log';
import type { RateLimits } from '../../modules/ratelimit';
import { appRouter } from '../trpc/router';
import type { Services } from '../../modules/runtime';
import type { RequestUsage } from '../../modules/usage/requests';
import { errorAnswer, respond, toApiError, type Answer } from './answer';
import { parseQuery, readJsonBody, type Query } from './body';
import { idempotencyKeyOf, withIdempotency } from './idempotency';
import { callProcedure } from './procedures';
import { RAW_ROUTES } from './raw-routes';
import { buildRouteTable, matchRoute, type RestRoute } from './routes';
import { nameLane } from '../../../db/lanes';
import { authenticate, bearer, checkScope, createAddressGuard, identify, limitKey } from './steps';

// The REST face: /v1/* straight from node:http (no Next in between). Checks run in the order
// docs/api.md gives ("Order of checks"): route → auth → rate limit → scope → input → lookup; each
// is a named step (steps.ts), then the route's target answers: a procedure called with the input
// read here (procedures.ts) or a raw route that reads its own (raw-routes.ts). Either returns an
// Answer (answer.ts) that Idempotency-Key may store, and that is written once, here; whatever is
// thrown becomes the error envelope in one place (toApiError).

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** The key a request identified: valid (`key`), or revoked or expired (`owner`). */
interface KeyRef {
  key?: VerifiedKey;
  owner?: KeyOwner;
}

export function createRestHandler(deps: { db: Db; limits: RateLimits; services: Services; usage?: RequestUsage }) {
  const { db, limits, services } = deps;
  const replayMarker = replayExecution(services);
  const routes = buildRouteTable(appRouter, RAW_ROUTES);
  const addresses = createAddressGuard(limits);
  const unknownKeys = createUnknownKeys();

  /** The body of a POST or PATCH (read already under an Idempotency-Key); parameters never travel in its query. */
  async function readBody(req: IncomingMessage, route: RestRoute, query: Query, preread?: Record<string, unknown>) {
    if (!BODY_METHODS.has(route.method)) return undefined;
    const [param] = Object.keys(query);
    if (param !== undefined) {
      throw new ApiError('unknown_parameter', `Unknown query parameter '${param}': send parameters in the JSON body`, { param });
    }
    return preread ?? (await readJsonBody(req));
  }

  /** The answer of a request (an error is thrown, and becomes its envelope in one place). */
  async function run(req: IncomingMessage, res: ServerResponse, requestId: string, keyRef: KeyRef): Promise<Answer> {
    const path = (req.url ?? '/').split('?')[0]!;
    const match = matchRoute(routes, req.method ?? 'GET', path);
    if (match.kind !== 'found' || !match.route.auth) {
      // Unknown routes, 405s and the public document: the route answers first (the order above),
      // but the request is still counted: against its key's plan when it carries a valid key,
      // against its address otherwise. Over either limit, 429 instead.
      const identity = await identify(req, db, unknownKeys, limits);
      if ('key' in identity) keyRef.key = identity.key;
      else keyRef.owner = identity.owner;
      const refused = 'key' in identity ? await limitKey(res, limits, identity.key, identity.counted) : await addresses.check(req, res);
      if (refused) throw refused;
    }
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${path.slice(0, 200)}`, {
        headers: { Allow: match.allow.join(', ') },
      });
    }
    if (match.kind === 'not_found') throw new ApiError('route_not_found', `Unknown route: ${req.method} ${path.slice(0, 200)}`);
    const { route, params } = match;
    let key: VerifiedKey | null = null;
    if (route.auth) {
      const auth = await authenticate(req, res, db, addresses, unknownKeys, limits);
      if ('error' in auth) {
        keyRef.owner = auth.owner;
        throw auth.error;
      }
      key = keyRef.key = auth.key;
      // From here its database calls wait in its workspace's line (db/lanes.ts).
      nameLane(`ws:${key.workspaceId}`);
      const refused = (await limitKey(res, limits, key, auth.counted)) ?? checkScope(route, key);
      if (refused) throw refused;
    }
    const target = route.target;
    const dispatch = async (preread?: Record<string, unknown>): Promise<Answer> => {
      const query = parseQuery(req.url ?? '');
      if (target.kind === 'raw') {
        let body: Promise<Record<string, unknown>> | undefined = preread ? Promise.resolve(preread) : undefined;
        return target.handle({ req, requestId, db, services, key, params, query, body: () => (body ??= readJsonBody(req)) });
      }
      const body = await readBody(req, route, query, preread);
      // The actor carries where the request came from: the audit log records it (docs/audit.md).
      const actor = key && { ...key, request: { ip: clientAddress(req), userAgent: req.headers['user-agent'] ?? null, requestId, trace: parseTraceparent(req.headers.traceparent) } };
      return callProcedure(target, route.successStatus, { requestId, db, actor, services }, { query, body, params });
    };
    // Idempotency-Key (POST): checked after the scope, before the input (docs/api.md,
    // "Idempotency").
    const idempotencyKey = key && route.method === 'POST' ? idempotencyKeyOf(req) : undefined;
    if (idempotencyKey === undefined) return dispatch();
    const body = await readJsonBody(req);
    const secret = bearer(req.headers.authorization)!;
    return withIdempotency({ req, requestId, db, key: key!, secret, idempotencyKey, path, body, replayMarker }, () => dispatch(body));
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
    let answer: Answer;
    try {
      answer = await run(req, res, requestId, keyRef);
    } catch (err) {
      // Refused before its body was read: answer, then close instead of reading the rest.
      if (hasBody(req)) closeAfterResponse(req, res);
      answer = errorAnswer(toApiError(err, requestId), requestId);
    }
    try {
      await respond(res, answer);
    } catch (err) {
      // A long answer failed while writing: too late for an envelope once its headers are out.
      const error = toApiError(err, requestId);
      if (res.headersSent) return void res.destroy();
      await respond(res, errorAnswer(error, requestId));
    }
  };
}
