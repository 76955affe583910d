import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { Db } from '../../db/client';
import { env } from '../env.js';
import { ApiError, insufficientScope, internalError } from '../errors';
import { newId } from '../ids';
import { verifyKey, type VerifiedKey } from '../keys/service';
import { log } from '../log';
import type { RateLimits } from '../ratelimit';
import type { Context } from '../trpc/init';
import { appRouter } from '../trpc/router';
import { readJsonBody } from './body';
import { buildOpenApiDocument } from '../openapi';
import { buildRouteTable, matchRoute, type RestRoute } from './routes';

// The REST face: /v1/* straight from node:http to trpc-to-openapi (no Next in between).
// Checks run in the order DESIGN.md 3.1 gives: route → auth → rate limit → scope → input → lookup.

type RestRequest = IncomingMessage & { body?: unknown; restContext?: Context; apiError?: ApiError };

const OPENAPI_PATH = '/v1/openapi.json';

function bearer(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

function clientAddress(req: IncomingMessage): string {
  if (env.TRUST_PROXY) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** Maps whatever a procedure threw to the public error (unexpected ones are logged, not shown). */
function toApiError(error: TRPCError, requestId: string): ApiError {
  if (error.cause instanceof ApiError) return error.cause;
  switch (error.code) {
    case 'PARSE_ERROR':
      return new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
    case 'PAYLOAD_TOO_LARGE':
      return new ApiError(413, 'request_too_large', 'The request body is larger than 1 MiB');
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', 'Send application/json');
    case 'NOT_FOUND':
      return new ApiError(404, 'route_not_found', 'Unknown route');
    default:
      log.error({ requestId, err: error.cause ?? error }, 'unhandled error in procedure');
      return internalError();
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

export function createRestHandler(deps: { db: Db; limits: RateLimits }) {
  const { db, limits } = deps;
  const routes = buildRouteTable(appRouter, [
    { method: 'GET', template: OPENAPI_PATH, procedurePath: '', successStatus: 200, public: true },
  ]);
  const successStatus = new Map(routes.map((r) => [r.procedurePath, r.successStatus]));
  let openapi: string | undefined;

  const trpc = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }) => (req as RestRequest).restContext!,
    responseMeta: ({ paths, errors }) => (errors.length === 0 ? { status: successStatus.get(paths?.[0] ?? '') ?? 200 } : {}),
    onError: ({ error, req }) => {
      const r = req as RestRequest;
      r.apiError = toApiError(error, r.restContext?.requestId ?? '');
    },
  });

  const fail = (res: ServerResponse, requestId: string, err: ApiError, headers: Record<string, string> = {}) =>
    send(res, err.status, err.toBody(requestId), { ...headers, ...err.headers });

  /** Requests that identify no valid key are counted per client address (a brute-force guard). */
  async function anonymous(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<boolean> {
    const decision = await limits.forAddress(clientAddress(req));
    for (const [k, v] of Object.entries(decision.headers)) res.setHeader(k, v);
    if (decision.allowed) return true;
    fail(res, requestId, new ApiError(429, 'rate_limit_exceeded', 'Too many requests from this address; retry later'));
    return false;
  }

  async function authenticate(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<VerifiedKey | null> {
    const token = bearer(req.headers.authorization);
    let failure: ApiError;
    if (token === undefined) {
      failure = new ApiError(401, 'missing_api_key', 'No API key provided. Send it as `Authorization: Bearer <key>`');
    } else if (token === null) {
      failure = new ApiError(401, 'invalid_api_key', 'Malformed Authorization header. Use `Authorization: Bearer <key>`');
    } else {
      const result = await verifyKey(db, token);
      if (result.valid) return result.key;
      failure = new ApiError(
        401,
        result.code,
        result.code === 'api_key_revoked'
          ? 'This API key has been revoked'
          : result.code === 'api_key_expired'
            ? 'This API key has expired'
            : 'Invalid API key',
      );
    }
    if (await anonymous(req, res, requestId)) fail(res, requestId, failure);
    return null;
  }

  async function dispatch(req: RestRequest, res: ServerResponse, route: RestRoute, requestId: string) {
    if (route.public) {
      if (!(await anonymous(req, res, requestId))) return;
      openapi ??= JSON.stringify(buildOpenApiDocument());
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(openapi);
      return;
    }
    const key = await authenticate(req, res, requestId);
    if (!key) return;
    req.restContext = { requestId, db, actor: key };
    const decision = await limits.forKey(key);
    for (const [k, v] of Object.entries(decision.headers)) res.setHeader(k, v);
    if (!decision.allowed) {
      return fail(res, requestId, new ApiError(429, 'rate_limit_exceeded', 'Rate limit exceeded for this API key; retry later'));
    }
    if (route.scope && !key.scopes.includes(route.scope)) {
      return fail(res, requestId, insufficientScope(route.scope));
    }
    if (route.method === 'GET' || route.method === 'DELETE') {
      req.body = {};
    } else {
      // Parameters of POST and PATCH travel in the body; a query string there would never be read.
      const [param] = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').keys();
      if (param !== undefined) {
        throw new ApiError(400, 'unknown_parameter', `Unknown query parameter '${param}': send parameters in the JSON body`, {
          param,
        });
      }
      req.body = await readJsonBody(req);
      // Checked and parsed above (any case, any parameters, or no body at all); the library
      // itself would insist on a literal `application/json` header.
      req.headers['content-type'] = 'application/json';
    }

    // trpc-to-openapi writes its own error shape; swap in our envelope before it goes out.
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      if (res.statusCode >= 400) {
        const err = req.apiError ?? internalError();
        res.statusCode = err.status;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
        return end(JSON.stringify(err.toBody(requestId)));
      }
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      return end(chunk);
    }) as ServerResponse['end'];
    await trpc(req, res);
  }

  return async function handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newId('req');
    const started = performance.now();
    res.setHeader('X-Request-Id', requestId);
    const path = (req.url ?? '/').split('?')[0]!;
    res.once('finish', () => {
      const actor = (req as RestRequest).restContext?.actor;
      log.info(
        {
          requestId,
          method: req.method,
          path,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          keyId: actor?.kind === 'key' ? actor.keyId : undefined,
        },
        'request',
      );
    });
    try {
      const match = matchRoute(routes, req.method ?? 'GET', path);
      if (match.kind === 'found') {
        await dispatch(req as RestRequest, res, match.route, requestId);
      } else if (await anonymous(req, res, requestId)) {
        if (match.kind === 'method_not_allowed') {
          fail(res, requestId, new ApiError(405, 'method_not_allowed', `${req.method} is not allowed on ${path}`), {
            Allow: match.allow.join(', '),
          });
        } else {
          fail(res, requestId, new ApiError(404, 'route_not_found', `Unknown route: ${req.method} ${path}`));
        }
      }
    } catch (err) {
      if (!(err instanceof ApiError)) log.error({ requestId, err }, 'unhandled error in REST handler');
      if (!res.headersSent) fail(res, requestId, err instanceof ApiError ? err : internalError());
      else res.destroy();
    }
  };
}
