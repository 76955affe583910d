// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { OpenAPIObject, OperationObject, ParameterObject, RequestBodyObject, ResponseObject, SecuritySchemeObject } from 'openapi3-ts/oas31';
import { expectError, expectStatus } from '../expect';
import { startServer, type ApiResponse, type SeededKey, type TestServer } from '../harness';
import { BUILT_OPERATIONS } from '../built-routes';
import { EXECUTION_EVENT_TYPES } from '../../server/modules/executions/events';
import { readStream } from '../executions/helpers';
import { checkSchema, type Schema } from '../schema';
import type { CreatedKey } from './types';

// GET /v1/openapi.json: a valid OpenAPI 3.1 document of exactly what is built, matching what the
// API really answers.

type Doc = OpenAPIObject;
type Operation = OperationObject;

let api: TestServer;
let admin: SeededKey;
let doc: Doc;
let rawDoc: string;
before(async () => {
  api = await startServer();
  admin = await api.seed.key({ name: 'admin' });
  const res = await api.request<Doc>('GET', '/v1/openapi.json');
  expectStatus(res, 200);
  doc = res.body;
  rawDoc = res.text;
});
after(() => api?.close());

function operation(method: string, path: string): Operation {
  const op = (doc.paths?.[path] as Record<string, Operation> | undefined)?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path} is not documented`);
  return op;
}

function responseSchema(method: string, path: string, status: number): Schema {
  const r = operation(method, path).responses?.[String(status)] as ResponseObject | undefined;
  assert.ok(r, `${method.toUpperCase()} ${path} documents no ${status}`);
  const schema = r.content?.['application/json']?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} ${status} has no JSON schema`);
  return schema as Schema;
}

/** The real response matches the schema documented for its method, path and status. */
function expectDocumented(method: string, path: string, res: ApiResponse<unknown>) {
  const problems = checkSchema(responseSchema(method, path, res.status), res.body, doc);
  assert.deepEqual(problems, [], `${method.toUpperCase()} ${path} ${res.status}: ${res.text}`);
  const documented = (operation(method, path).responses?.[String(res.status)] as ResponseObject).headers ?? {};
  for (const name of Object.keys(documented)) assert.ok(res.headers.has(name), `documented header ${name} missing`);
}

describe('GET /v1/openapi.json', () => {
  it('needs no key and validates as OpenAPI 3.1', async () => {
    assert.match(doc.openapi, /^3\.1\./);
    const result = await validate(JSON.parse(rawDoc) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
  });

  it('lists exactly what is built: keys, agents, executions, conversations and itself', () => {
    const ops = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    assert.deepEqual(ops.sort(), BUILT_OPERATIONS);
    assert.deepEqual(operation('get', '/v1/openapi.json').security, [], 'the document needs no key');
  });

  it('documents bearer auth on every operation', () => {
    const scheme = doc.components?.securitySchemes?.bearerAuth as SecuritySchemeObject | undefined;
    assert.equal(scheme?.type, 'http');
    assert.equal(scheme?.scheme, 'bearer');
    for (const [m, p] of [['post', '/v1/keys'], ['get', '/v1/keys'], ['delete', '/v1/keys/{id}']] as const) {
      assert.deepEqual(operation(m, p).security, [{ bearerAuth: [] }]);
    }
  });

  it('documents POST /v1/keys as 201 (not 200) and every error as the Error envelope', () => {
    const responses = operation('post', '/v1/keys').responses ?? {};
    assert.ok('201' in responses);
    assert.ok(!('200' in responses));
    const errors = ['400', '401', '403', '413', '415', '429', '500'];
    assert.deepEqual(Object.keys(responses).sort(), ['201', ...errors]);
    for (const status of errors) {
      assert.deepEqual(responseSchema('post', '/v1/keys', Number(status)), { $ref: '#/components/schemas/Error' }, status);
    }
    const error = doc.components?.schemas?.Error as Schema;
    const inner = error.properties?.error;
    assert.deepEqual([...(inner?.required ?? [])].sort(), ['code', 'message', 'requestId', 'type']);
    assert.ok(inner?.properties?.param, 'param is not documented');
    const leftovers = Object.keys(doc.components?.schemas ?? {}).filter((n) => n.startsWith('error.'));
    assert.deepEqual(leftovers, [], 'schemas of an error shape the API never sends');
  });

  it('documents on each operation the statuses it can answer, naming their codes', () => {
    const statuses = (m: string, p: string) => Object.keys(operation(m, p).responses ?? {}).sort();
    assert.deepEqual(statuses('get', '/v1/keys'), ['200', '400', '401', '403', '429', '500']);
    assert.deepEqual(statuses('delete', '/v1/keys/{id}'), ['200', '400', '401', '403', '404', '429', '500']);
    const description = (m: string, p: string, s: string) => (operation(m, p).responses?.[s] as ResponseObject).description;
    assert.match(description('get', '/v1/keys', '400'), /`invalid_cursor`/);
    assert.doesNotMatch(description('post', '/v1/keys', '400'), /`invalid_cursor`/);
    assert.match(description('post', '/v1/keys', '400'), /`invalid_json`/);
    assert.match(description('post', '/v1/keys', '403'), /`environment_mismatch`/);
    assert.match(description('delete', '/v1/keys/{id}', '404'), /`resource_not_found`/);
    assert.ok((operation('get', '/v1/keys').responses?.['429'] as ResponseObject).headers?.['Retry-After']);
  });

  it('carries the error code table in its description', () => {
    for (const code of ['missing_api_key', 'route_not_found', 'conversation_busy', 'idempotency_conflict', 'malformed_request', 'request_header_too_large', 'internal_error']) {
      assert.match(doc.info.description ?? '', new RegExp(`\\| \`${code}\` \\| \\d{3} \\|`), code);
    }
    assert.doesNotMatch(doc.info.description ?? '', /`unauthenticated`/, 'a dashboard-only code');
  });

  it('documents the request body and list parameters', () => {
    const body = (operation('post', '/v1/keys').requestBody as RequestBodyObject).content['application/json']!
      .schema as Schema;
    assert.deepEqual(Object.keys(body.properties ?? {}).sort(), ['environment', 'expiresAt', 'name', 'scopes']);
    assert.deepEqual(body.required, ['name']);
    assert.equal(body.additionalProperties, false);
    const params = (operation('get', '/v1/keys').parameters ?? []) as ParameterObject[];
    assert.deepEqual(params.map((p) => `${p.in}:${p.name}`).sort(), ['query:after', 'query:before', 'query:limit']);
    const limit = params.find((p) => p.name === 'limit')?.schema as Schema;
    assert.deepEqual([limit.minimum, limit.maximum], [1, 100]);
    for (const p of params) assert.ok((p.description ?? '').length > 10, `${p.name} has no description`);
    assert.match(params.find((p) => p.name === 'after')?.description ?? '', /nextCursor/);
    assert.match(params.find((p) => p.name === 'before')?.description ?? '', /prevCursor/);
  });
});

describe('real responses match the document', () => {
  it('create, list and revoke', async () => {
    const created = await api.request<CreatedKey>('POST', '/v1/keys', {
      key: admin.key,
      body: { name: 'documented', expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expectStatus(created, 201);
    expectDocumented('post', '/v1/keys', created);
    const required = responseSchema('post', '/v1/keys', 201);
    assert.equal(required.$ref, '#/components/schemas/CreatedApiKey');
    assert.deepEqual(
      [...((doc.components?.schemas?.CreatedApiKey as Schema).required ?? [])].sort(),
      Object.keys(created.body).sort(),
      'the documented required fields are not what the API returns',
    );

    const listed = await api.request('GET', '/v1/keys?limit=1', { key: admin.key });
    expectStatus(listed, 200);
    expectDocumented('get', '/v1/keys', listed);

    const revoked = await api.request('DELETE', `/v1/keys/${created.body.id}`, { key: admin.key });
    expectStatus(revoked, 200);
    expectDocumented('delete', '/v1/keys/{id}', revoked);
  });

  it('errors', async () => {
    const cases: [string, string, ApiResponse<unknown>][] = [
      ['post', '/v1/keys', await api.request('POST', '/v1/keys', { key: admin.key, body: { name: 'x', id: 'y' } })],
      ['get', '/v1/keys', await api.request('GET', '/v1/keys')],
      ['delete', '/v1/keys/{id}', await api.request('DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { key: admin.key })],
      ['post', '/v1/keys', await api.request('POST', '/v1/keys', { key: admin.key, rawBody: 'x', headers: { 'content-type': 'text/plain' } })],
    ];
    assert.deepEqual(cases.map(([, , r]) => r.status), [400, 401, 404, 415]);
    for (const [m, p, res] of cases) expectDocumented(m, p, res);
    expectError(cases[0]![2], 400, 'unknown_parameter', 'id');
  });
});

describe('executions in the document', () => {
  it('execute documents 202 (queued), 200 (wait: JSON, stream: SSE) and its 404/409s; the stream route documents SSE', () => {
    const execute = operation('post', '/v1/agents/{id}/execute');
    const statuses = Object.keys(execute.responses ?? {}).sort();
    for (const s of ['200', '202', '404', '409']) assert.ok(statuses.includes(s), `execute documents no ${s}`);
    // Execute is a procedure: its 200 is generated from its meta (`eventStream`), JSON or the stream.
    const ok = (execute.responses?.['200'] as ResponseObject).content ?? {};
    assert.deepEqual(Object.keys(ok).sort(), ['application/json', 'text/event-stream']);
    assert.deepEqual(ok['application/json']!.schema, (execute.responses?.['202'] as ResponseObject).content?.['application/json']?.schema);
    assert.deepEqual((ok['text/event-stream']!.schema as Record<string, unknown>)['x-itemSchema'], { $ref: '#/components/schemas/ExecutionEvent' });
    assert.equal(execute.operationId, 'agents-execute');
    assert.match((execute.responses?.['409'] as ResponseObject).description ?? '', /`conversation_busy`/);
    const body = (execute.requestBody as RequestBodyObject).content['application/json']!.schema as Schema;
    assert.deepEqual(Object.keys(body.properties ?? {}).sort(), ['conversationId', 'ifBusy', 'input', 'label', 'metadata', 'outputSchema', 'stream', 'version', 'wait']);
    assert.equal((body.properties?.wait as Schema).type, 'boolean');
    const stream = operation('get', '/v1/executions/{id}/stream');
    assert.ok((stream.responses?.['200'] as ResponseObject).content?.['text/event-stream']);
    assert.ok(((stream.parameters ?? []) as ParameterObject[]).some((p) => p.in === 'header' && p.name === 'Last-Event-ID'));
    assert.match((operation('post', '/v1/executions/{id}/cancel').responses?.['409'] as ResponseObject).description ?? '', /`execution_not_cancellable`/);
    assert.match((operation('delete', '/v1/conversations/{id}').responses?.['409'] as ResponseObject).description ?? '', /`conversation_busy`/);
  });

  it('documents the stream’s events from their contract (ExecutionEvent, one of them per type), and real events match it', async () => {
    const description = (operation('get', '/v1/executions/{id}/stream').responses?.['200'] as ResponseObject).description;
    for (const type of EXECUTION_EVENT_TYPES) assert.ok(description.includes(`\`${type}\``), `the stream's description names ${type}`);
    const union = doc.components?.schemas?.ExecutionEvent as Schema;
    assert.equal(union.oneOf?.length, EXECUTION_EVENT_TYPES.length);
    const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: admin.key, body: { name: 'streamed' } });
    expectStatus(agent, 201);
    const stream = await readStream(`${api.url}/v1/agents/${agent.body.id}/execute`, { method: 'POST', key: admin.key, body: { input: 'hi', stream: true } });
    assert.deepEqual([stream.events[0]?.event, stream.events.at(-1)?.event], ['execution.started', 'execution.succeeded']);
    assert.ok(stream.events.some((e) => e.event === 'text.delta'));
    for (const e of stream.events) assert.deepEqual(checkSchema({ $ref: '#/components/schemas/ExecutionEvent' }, e.data, doc), [], e.event);
  });

  it('documents the conversation list (paginated, filtered by agent) and the model list (not paginated), with examples', () => {
    const conversations = operation('get', '/v1/conversations');
    const params = ((conversations.parameters ?? []) as ParameterObject[]).map((p) => `${p.in}:${p.name}`).sort();
    assert.deepEqual(params, ['query:after', 'query:agentId', 'query:before', 'query:limit']);
    assert.match((conversations.responses?.['400'] as ResponseObject).description ?? '', /`invalid_cursor`/);
    const summary = doc.components?.schemas?.ConversationSummary as Schema;
    assert.deepEqual([...(summary.required ?? [])].sort(), ['agentId', 'createdAt', 'id', 'lastMessageAt', 'messageCount', 'updatedAt']);
    assert.ok(!summary.properties?.messages, 'listed without messages');
    assert.ok((summary.properties?.messageCount as Schema & { example?: unknown }).example !== undefined);

    const models = operation('get', '/v1/models');
    assert.deepEqual(models.parameters ?? [], []);
    assert.ok(!('404' in (models.responses ?? {})));
    const provider = doc.components?.schemas?.ModelProvider as Schema;
    assert.deepEqual([...(provider.required ?? [])].sort(), ['configured', 'examples', 'provider']);
    assert.deepEqual((provider.properties?.provider as Schema).enum, ['sandbox', 'openai', 'anthropic', 'openai-compatible']);
    assert.ok(Array.isArray((provider.properties?.examples as Schema & { example?: unknown }).example));
  });

  it('real execution and conversation responses match it', async () => {
    const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: admin.key, body: { name: 'documented' } });
    expectStatus(agent, 201);
    const queued = await api.request<{ id: string }>('POST', `/v1/agents/${agent.body.id}/execute`, { key: admin.key, body: { input: 'hi' } });
    expectStatus(queued, 202);
    expectDocumented('post', '/v1/agents/{id}/execute', queued);
    const done = await api.request<{ id: string; conversationId: string }>('POST', `/v1/agents/${agent.body.id}/execute`, {
      key: admin.key,
      body: { input: 'hi', wait: true },
    });
    expectStatus(done, 200);
    expectDocumented('post', '/v1/agents/{id}/execute', done);
    expectDocumented('get', '/v1/executions/{id}', await api.request('GET', `/v1/executions/${done.body.id}`, { key: admin.key }));
    expectDocumented('get', '/v1/executions', await api.request('GET', '/v1/executions?limit=2', { key: admin.key }));
    const notCancellable = await api.request('POST', `/v1/executions/${done.body.id}/cancel`, { key: admin.key });
    expectError(notCancellable, 409, 'execution_not_cancellable');
    expectDocumented('post', '/v1/executions/{id}/cancel', notCancellable);
    expectDocumented('get', '/v1/conversations/{id}', await api.request('GET', `/v1/conversations/${done.body.conversationId}`, { key: admin.key }));
    const conversations = await api.request('GET', `/v1/conversations?limit=1&agentId=${agent.body.id}`, { key: admin.key });
    expectStatus(conversations, 200);
    expectDocumented('get', '/v1/conversations', conversations);
    const models = await api.request('GET', '/v1/models', { key: admin.key });
    expectStatus(models, 200);
    expectDocumented('get', '/v1/models', models);
    expectDocumented('delete', '/v1/conversations/{id}', await api.request('DELETE', `/v1/conversations/${done.body.conversationId}`, { key: admin.key }));
  });

  it('real analytics responses match it, grouped or not, and their errors', async () => {
    const start = new Date(Date.now() - 86_400_000).toISOString();
    for (const series of ['executions', 'requests']) {
      const path = `/v1/analytics/${series}`;
      expectDocumented('get', path, await api.request('GET', `${path}?start=${start}`, { key: admin.key }));
      const grouped = await api.request('GET', `${path}?start=${start}&granularity=hour&limit=3&groupBy=${series === 'executions' ? 'agentId,model,status' : 'keyId'}`, { key: admin.key });
      expectStatus(grouped, 200);
      expectDocumented('get', path, grouped);
      const bad = await api.request('GET', `${path}?start=${start}&after=nope`, { key: admin.key });
      expectError(bad, 400, 'invalid_cursor', 'after');
      expectDocumented('get', path, bad);
    }
  });
});
