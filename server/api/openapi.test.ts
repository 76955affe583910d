import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OperationObject, ParameterObject, ResponseObject } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../platform/errors';
import { json } from './rest/answer';
import { buildOpenApiDocument, operationErrors } from './openapi';
import { PAGE_ERRORS, pageQuerySchema } from '../platform/pagination';
import { apiProcedure, router } from './trpc/init';

// The error responses of /v1/openapi.json come from the catalogue: every operation documents the
// codes any route can answer, POST/PATCH those of a body, and only what its meta declares beyond.

const item = z.object({ id: z.string() });
const fixture = router({
  cancel: apiProcedure
    .meta({
      scope: 'agents:execute',
      errors: ['resource_not_found', 'execution_not_cancellable'],
      openapi: { method: 'POST', path: '/v1/executions/{id}/cancel' },
    })
    .input(z.strictObject({ id: z.string() }))
    .output(item)
    .mutation(({ input }) => input),
  list: apiProcedure
    .meta({ scope: 'agents:read', errors: PAGE_ERRORS, openapi: { method: 'GET', path: '/v1/executions' } })
    .input(z.strictObject({ ...pageQuerySchema, status: z.enum(['queued', 'running']).meta({ description: 'Only this status.' }).optional() }))
    .output(z.object({ data: z.array(item), hasMore: z.boolean() }))
    .query(() => ({ data: [], hasMore: false })),
  retrieve: apiProcedure
    .meta({ scope: 'agents:read', errors: ['resource_not_found'], openapi: { method: 'GET', path: '/v1/executions/{id}' } })
    .input(z.strictObject({ id: z.string() }))
    .output(item)
    .query(({ input }) => input),
});

const doc = buildOpenApiDocument(fixture);
const op = (method: string, path: string) => (doc.paths?.[path] as Record<string, OperationObject>)[method]!;
const statuses = (o: OperationObject) => Object.keys(o.responses ?? {}).sort();
const codesIn = (r: ResponseObject) => [...r.description.matchAll(/^- `([a-z_]+)`/gm)].map((m) => m[1]);

describe('operation errors', () => {
  it('are the codes of every route, of a body on POST/PATCH, and the declared ones', () => {
    const every = ERROR_CATALOGUE.filter((e) => e.on === 'every').map((e) => e.code);
    const body = ERROR_CATALOGUE.filter((e) => e.on === 'body').map((e) => e.code);
    const codes = (method: string, declared: ErrorCode[] = []) => operationErrors(method, declared).map((e) => e.code).sort();
    assert.deepEqual(codes('GET'), [...every].sort());
    assert.deepEqual(codes('DELETE'), [...every].sort());
    assert.deepEqual(codes('POST'), [...every, ...body].sort());
    assert.deepEqual(codes('PATCH', ['conversation_busy']), [...every, ...body, 'conversation_busy'].sort());
  });

  it('never include routing, unparseable-request or dashboard codes', () => {
    const codes = operationErrors('POST', ERROR_CATALOGUE.map((e) => e.code)).map((e) => e.code);
    for (const code of ['route_not_found', 'method_not_allowed', 'malformed_request', 'request_timeout', 'request_header_too_large', 'unauthenticated', 'email_taken']) {
      assert.ok(!codes.includes(code as ErrorCode), code);
    }
  });
});

describe('the document’s error responses', () => {
  it('documents 409 only on the operation that declares a 409 code', () => {
    assert.ok('409' in (op('post', '/v1/executions/{id}/cancel').responses ?? {}));
    assert.ok(!('409' in (op('get', '/v1/executions').responses ?? {})));
    assert.ok(!('409' in (op('get', '/v1/executions/{id}').responses ?? {})));
    assert.deepEqual(codesIn(op('post', '/v1/executions/{id}/cancel').responses!['409'] as ResponseObject), ['execution_not_cancellable']);
  });

  it('lists under each status exactly the codes the operation can answer with it', () => {
    const list = op('get', '/v1/executions');
    assert.deepEqual(statuses(list), ['200', '400', '401', '403', '429', '500']);
    assert.deepEqual(codesIn(list.responses!['400'] as ResponseObject).sort(), [
      'invalid_cursor',
      'invalid_parameter',
      'missing_required_field',
      'parameter_conflict',
      'unknown_parameter',
    ]);
    assert.deepEqual(statuses(op('get', '/v1/executions/{id}')), ['200', '400', '401', '403', '404', '429', '500']);
    assert.deepEqual(statuses(op('post', '/v1/executions/{id}/cancel')), ['200', '400', '401', '403', '404', '409', '413', '415', '429', '500']);
    const cancel400 = codesIn(op('post', '/v1/executions/{id}/cancel').responses!['400'] as ResponseObject);
    assert.ok(cancel400.includes('invalid_json') && !cancel400.includes('invalid_cursor'));
    const limited = op('get', '/v1/executions').responses!['429'] as ResponseObject;
    assert.ok(limited.headers?.['Retry-After'], '429 documents Retry-After');
  });

  it('carries the whole catalogue of the REST face in the document description', () => {
    for (const e of ERROR_CATALOGUE) {
      const row = `| \`${e.code}\` | ${e.status} | \`${e.type}\` | ${e.description} |`;
      assert.equal(doc.info.description?.includes(row), e.on !== 'dashboard', e.code);
    }
  });
});

describe('query parameters', () => {
  it('carry the descriptions of their zod schemas', () => {
    const params = (op('get', '/v1/executions').parameters ?? []) as ParameterObject[];
    const described = Object.fromEntries(params.map((p) => [p.name, p.description]));
    assert.deepEqual(Object.keys(described).sort(), ['after', 'before', 'limit', 'status']);
    for (const [name, description] of Object.entries(described)) assert.ok(description && description.length > 10, name);
    assert.equal(described.status, 'Only this status.');
    const limit = params.find((p) => p.name === 'limit')!;
    assert.deepEqual(limit.schema, {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
      example: 20,
      description: described.limit,
    });
  });
});

describe('raw routes in the document', () => {
  const raw = [
    {
      method: 'POST' as const,
      template: '/v1/agents/{id}/execute',
      scope: 'agents:execute' as const,
      openapi: {
        operation: { summary: 'Execute', responses: { '202': { description: 'Queued' }, '200': { description: 'Finished' } } },
        errors: ['resource_not_found', 'conversation_busy'] as const,
      },
      handle: async () => json(200, {}),
    },
    { method: 'GET' as const, template: '/v1/meta', auth: false, openapi: { operation: { summary: 'Meta', responses: { '200': { description: 'ok' } } } }, handle: async () => json(200, {}) },
    { method: 'GET' as const, template: '/v1/undocumented', handle: async () => json(200, {}) },
  ];
  const withRaw = buildOpenApiDocument(fixture, raw);
  const rawOp = (method: string, path: string) => (withRaw.paths?.[path] as Record<string, OperationObject>)[method]!;

  it('carry their own success responses and the catalogue’s errors, with what they declare', () => {
    const execute = rawOp('post', '/v1/agents/{id}/execute');
    assert.deepEqual(statuses(execute), ['200', '202', '400', '401', '403', '404', '409', '413', '415', '429', '500']);
    assert.deepEqual(codesIn(execute.responses!['409'] as ResponseObject), ['conversation_busy']);
  });

  it('a keyless route needs no security and answers only 429 and 500 besides success', () => {
    const meta = rawOp('get', '/v1/meta');
    assert.deepEqual(meta.security, []);
    assert.deepEqual(statuses(meta), ['200', '429', '500']);
    assert.equal(withRaw.paths?.['/v1/undocumented'], undefined);
  });
});
