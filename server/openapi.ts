import type { SchemaObject } from 'openapi3-ts/oas31';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { buildRouteTable } from './rest/routes';
import { appRouter } from './trpc/router';

// The OpenAPI 3.1 document, generated from the procedures' own zod schemas. trpc-to-openapi
// always says 200 and describes errors in its own shape, so we correct both here: the
// success status from each procedure's meta, and our error envelope for every failure.

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid input (missing_required_field, invalid_parameter, unknown_parameter, invalid_json, invalid_cursor, parameter_conflict)',
  '401': 'No, unknown, revoked or expired API key',
  '403': 'The key lacks the required scope, or tried to act beyond its environment',
  '404': 'No such resource in this workspace and environment',
  '405': 'Method not allowed on this path (see the Allow header)',
  '413': 'Request body larger than 1 MiB',
  '415': 'Request body is not application/json',
  '429': 'Rate limit exceeded (see Retry-After)',
  '500': 'Unexpected error (quote the requestId)',
};

const int = { schema: { type: 'integer' } };
const rateLimitHeaders = {
  'X-Request-Id': { description: 'Identifier of this request (req_…), also in error.requestId', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window with the fewest requests left', ...int },
  'X-RateLimit-Remaining': { description: 'Requests left in that window', ...int },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which that window resets', ...int },
};

const errorSchema: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'requestId'],
      properties: {
        type: {
          type: 'string',
          enum: ['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error', 'api_error'],
        },
        code: { type: 'string', example: 'missing_required_field' },
        message: { type: 'string' },
        param: { type: 'string', description: 'The offending parameter (dotted path for nested fields)' },
        requestId: { type: 'string', example: 'req_01JD8X3ZQ2N6W5V4T3S2R1P0MK' },
      },
    },
  },
};

type Operation = { responses: Record<string, { description: string; headers?: unknown; content?: unknown }> };

export function buildOpenApiDocument(): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Agent Automation Service API',
    description:
      'Create AI agents, execute them and follow their conversations. Authenticate with `Authorization: Bearer <API key>`; ' +
      'every error has the shape `{error:{type,code,message,param?,requestId}}`.',
    version: '1.0.0',
    baseUrl: '/',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_live_sk_… or svc_test_sk_…' } },
  });
  // Drop the library's own error schemas (`error.BAD_REQUEST`…): no response ever has that shape.
  const schemas = Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.'));
  doc.components = { ...doc.components, schemas: { ...Object.fromEntries(schemas), Error: errorSchema } };
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

  for (const route of buildRouteTable(appRouter)) {
    const op = (doc.paths?.[route.template] as Record<string, Operation> | undefined)?.[route.method.toLowerCase()];
    if (!op) continue;
    const success = op.responses['200'];
    const responses: Operation['responses'] = {};
    if (success) responses[String(route.successStatus)] = { ...success, headers: rateLimitHeaders };
    const statuses = ['400', '401', '403', '404', '405', '429', '500'];
    if (route.method === 'POST' || route.method === 'PATCH') statuses.push('413', '415');
    for (const s of statuses.sort()) {
      responses[s] = { description: ERROR_STATUSES[s]!, headers: rateLimitHeaders, content: errorContent };
    }
    op.responses = responses;
  }
  return doc;
}
