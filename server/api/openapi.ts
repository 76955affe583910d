import { STATUS_CODES } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import type { HeadersObject, OperationObject, ResponseObject, ResponsesObject, SchemaObject } from 'openapi3-ts/oas31';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { createSchema } from 'zod-openapi';
import { executionEventSchema } from '../modules/executions/events';
import { ERROR_CATALOGUE, ERROR_TYPES, type CatalogueEntry, type ErrorCode } from '../platform/errors';
import { addCodeSamples } from './code-samples';
import { eventStreamContent } from './event-stream-doc';
import { introduction } from './openapi-guide';
import { buildRouteTable, type RawRoute } from './rest/routes';
import type { Meta } from './trpc/init';
import { appRouter } from './trpc/router';

// The OpenAPI 3.1 document, generated from the procedures' own zod schemas. trpc-to-openapi
// always says 200 and describes errors in its own shape, so we correct both here: the success
// status from each procedure's meta, and our error envelope for each status an operation can
// answer, listing its codes from the catalogue (errors.ts), which the document also carries
// whole in its description.

const int = { schema: { type: 'integer' } } as const;
const rateLimitHeaders: HeadersObject = {
  'X-Request-Id': { description: 'Identifier of this request (req_…), also in error.requestId', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window with the fewest requests left', ...int },
  'X-RateLimit-Remaining': { description: 'Requests left in that window', ...int },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which that window resets', ...int },
};
const retryAfter: HeadersObject = {
  'Retry-After': { description: 'Seconds to wait before retrying', ...int },
};

const errorSchema: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'requestId'],
      properties: {
        type: { type: 'string', enum: [...ERROR_TYPES] },
        code: { type: 'string', description: 'What went wrong, for programs (see the error codes table).', example: 'missing_required_field' },
        message: { type: 'string', description: 'What went wrong, for humans.' },
        param: { type: 'string', description: 'The offending parameter (dotted path for nested fields)' },
        requestId: { type: 'string', example: 'req_01JD8X3ZQ2N6W5V4T3S2R1P0MK' },
      },
    },
  },
};

/**
 * The events of an execution's stream (modules/executions/events.ts), which no procedure's schema
 * reaches: `ExecutionEvent` (one of them, told apart by `type`) and one schema per type.
 */
const eventSchemas = () => createSchema(executionEventSchema, { io: 'output' }).components as Record<string, SchemaObject>;

/** Every code the REST face can answer (dashboard-only codes are not part of /v1). */
const REST_ERRORS = ERROR_CATALOGUE.filter((e) => e.on !== 'dashboard');

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** The codes an operation can answer: those of every route, the body's, and the ones it declares. */
export function operationErrors(method: string, declared: readonly ErrorCode[] = []): CatalogueEntry[] {
  return ERROR_CATALOGUE.filter(
    (e) =>
      e.on === 'every' ||
      (e.on === 'body' && BODY_METHODS.has(method.toUpperCase())) ||
      (e.on === 'declared' && declared.includes(e.code)),
  );
}

const codeLine = (e: CatalogueEntry) => `- \`${e.code}\`: ${e.description}`;

function errorResponses(entries: CatalogueEntry[]): ResponsesObject {
  const content = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const responses: ResponsesObject = {};
  for (const status of [...new Set(entries.map((e) => e.status))].sort((a, b) => a - b)) {
    const codes = entries.filter((e) => e.status === status);
    responses[String(status)] = {
      description: `${STATUS_CODES[status]}. \`error.code\` is one of:\n\n${codes.map(codeLine).join('\n')}`,
      headers: status === 429 ? { ...rateLimitHeaders, ...retryAfter } : rateLimitHeaders,
      content,
    };
  }
  return responses;
}

function errorTable(): string {
  const rows = REST_ERRORS.map((e) => `| \`${e.code}\` | ${e.status} | \`${e.type}\` | ${e.description} |`);
  return [
    '## Errors',
    '',
    'Every error answers `{"error":{"type","code","message","param"?,"requestId"}}` with the status below; ' +
      'branch on `code`, show `message` to humans, and quote `requestId` when reporting a problem. ' +
      'Each operation lists the codes it can answer.',
    '',
    '| code | status | type | meaning |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** A procedure's meta. */
function metaOf(router: AnyRouter, procedurePath: string): Meta | undefined {
  const procedure: unknown = router._def.procedures[procedurePath];
  return (procedure as { _def: { meta?: Meta } } | undefined)?._def.meta;
}

/** A route that needs no key can only fail by the per-address limit or unexpectedly. */
const KEYLESS_ERRORS = ERROR_CATALOGUE.filter((e) => e.code === 'rate_limit_exceeded' || e.code === 'internal_error');

/** Raw routes (raw-routes.ts) document themselves; their errors come from the catalogue too. */
function addRawRoutes(doc: OpenAPIObject, raw: readonly RawRoute[]): void {
  for (const route of raw) {
    if (!route.openapi) continue;
    const { operation, errors = [] } = route.openapi;
    const keyless = route.auth === false;
    const path = ((doc.paths ??= {})[route.template] ??= {}) as Record<string, OperationObject>;
    path[route.method.toLowerCase()] = {
      ...operation,
      ...(keyless ? { security: [] } : {}),
      responses: {
        ...Object.fromEntries(Object.entries(operation.responses ?? {}).map(([s, r]) => [s, { ...r, headers: rateLimitHeaders }])),
        ...errorResponses(keyless ? KEYLESS_ERRORS : operationErrors(route.method, errors)),
      },
    };
  }
}

/** The document of `router` and the raw routes (the app's own unless a test passes others). */
export function buildOpenApiDocument(router: AnyRouter = appRouter, raw: readonly RawRoute[] = []): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: 'Agent Automation Service API',
    description: introduction(errorTable()),
    version: '1.0.0',
    baseUrl: '/',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_live_sk_… or svc_test_sk_…' } },
  });
  // Drop the library's own error schemas (`error.BAD_REQUEST`…): no response ever has that shape.
  const schemas = Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.'));
  doc.components = { ...doc.components, schemas: { ...eventSchemas(), ...Object.fromEntries(schemas), Error: errorSchema } };

  for (const route of buildRouteTable(router)) {
    if (route.target.kind !== 'procedure') continue;
    const op = (doc.paths?.[route.template] as Record<string, OperationObject> | undefined)?.[route.method.toLowerCase()];
    if (!op) continue;
    const success = op.responses?.['200'] as ResponseObject | undefined;
    const meta = metaOf(router, route.target.path);
    // A procedure that may also answer 200 with its output or an event stream (execute's `wait` and `stream`).
    const alsoOk: ResponsesObject = meta?.eventStream
      ? { '200': { description: meta.eventStream.description, headers: rateLimitHeaders, content: { ...success?.content, ...eventStreamContent } } }
      : {};
    op.responses = {
      ...alsoOk,
      ...(success ? { [String(route.successStatus)]: { ...success, headers: rateLimitHeaders } } : {}),
      ...errorResponses(operationErrors(route.method, meta?.errors ?? [])),
    };
    // zod-openapi puts a query parameter's description on its schema only; renderers read the parameter's.
    for (const param of op.parameters ?? []) {
      if ('$ref' in param || param.description) continue;
      const schema = param.schema;
      if (schema && !('$ref' in schema) && schema.description) param.description = schema.description;
    }
  }
  addRawRoutes(doc, raw);
  addCodeSamples(doc);
  return doc;
}
