import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { ApiError, internalError } from '../errors';
import { log } from '../log';
import type { Context } from '../trpc/init';
import { appRouter } from '../trpc/router';
import type { Query } from './body';
import type { RestRoute } from './routes';

// The bridge to trpc-to-openapi for procedure routes: input already read and checked by the
// pipeline, context already built; the library's own error shape is swapped for our envelope.

type BridgedRequest = IncomingMessage & { body?: unknown; query?: Query; restContext?: Context; apiError?: ApiError };

/** Maps whatever a procedure threw to the public error (unexpected ones are logged, not shown). */
function toApiError(error: TRPCError, requestId: string): ApiError {
  if (error.cause instanceof ApiError) return error.cause;
  switch (error.code) {
    case 'PARSE_ERROR':
      return new ApiError('invalid_json', 'The request body is not valid JSON');
    case 'PAYLOAD_TOO_LARGE':
      return new ApiError('request_too_large', 'The request body is larger than 1 MiB');
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send application/json');
    case 'NOT_FOUND':
      return new ApiError('route_not_found', 'Unknown route');
    default:
      log.error({ requestId, err: error.cause ?? error }, 'unhandled error in procedure');
      return internalError();
  }
}

export function createProcedureBridge(routes: RestRoute[]) {
  const successStatus = new Map(routes.flatMap((r) => (r.target.kind === 'procedure' ? [[r.target.path, r.successStatus]] : [])));
  const trpc = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }) => (req as BridgedRequest).restContext!,
    responseMeta: ({ paths, errors }) => (errors.length === 0 ? { status: successStatus.get(paths?.[0] ?? '') ?? 200 } : {}),
    onError: ({ error, req }) => {
      const r = req as BridgedRequest;
      r.apiError = toApiError(error, r.restContext?.requestId ?? '');
    },
  });

  return async function bridge(req: IncomingMessage, res: ServerResponse, context: Context, input: { query: Query; body?: unknown }) {
    const r = req as BridgedRequest;
    r.restContext = context;
    r.query = input.query;
    if (input.body !== undefined) {
      r.body = input.body;
      // Checked and parsed already (any case, any parameters, or no body at all); the library
      // itself would insist on a literal `application/json` header.
      req.headers['content-type'] = 'application/json';
    } else {
      r.body = {};
    }
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      if (res.statusCode < 400) return end(chunk);
      const err = r.apiError ?? internalError();
      res.statusCode = err.status;
      for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
      return end(JSON.stringify(err.toBody(context.requestId)));
    }) as ServerResponse['end'];
    await trpc(req, res);
  };
}
