// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';

// Strings that are not well-formed Unicode (a lone surrogate such as "\ud800", which JSON can
// spell but no database column can hold) anywhere in a JSON body, on both faces: 400
// invalid_parameter with the field's dotted path, nothing written. Before, a lone surrogate in
// an execution's input was a 500 (and its log line quoted the input), and in a key's name it was
// silently stored as U+FFFD.

let api: TestServer;
let admin: SeededKey;
let agentId: string;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
  admin = await api.seed.key({ ...UNLIMITED });
  const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: admin.key, body: { name: 'echo', model: 'sandbox/echo' } });
  expectStatus(agent, 201);
  agentId = agent.body.id;
});
after(() => api?.close());

const count = async (table: 'executions' | 'api_keys' | 'agents') =>
  (await api.query<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)} where workspace_id = ${admin.workspace.id}`))[0]!.n;

describe('REST bodies', () => {
  it('a lone surrogate in an execution input is 400 invalid_parameter (input), never a 500, nothing written', async () => {
    const before0 = await count('executions');
    for (const input of ['secret input \ud800', '\udc00 trailing', 'a\ud800\ud800b']) {
      const res = await api.request('POST', `/v1/agents/${agentId}/execute`, { key: admin.key, body: { input } });
      expectError(res, 400, 'invalid_parameter', 'input');
      assert.match(res.body.error.message, /not valid Unicode/);
      assert.ok(!res.text.includes('secret input'), 'the answer does not echo the input');
    }
    const waited = await api.request('POST', `/v1/agents/${agentId}/execute`, { key: admin.key, body: { input: 'x\ud800', wait: true } });
    expectError(waited, 400, 'invalid_parameter', 'input');
    const keyed = await api.request('POST', `/v1/agents/${agentId}/execute`, {
      key: admin.key,
      body: { input: 'x\ud800' },
      headers: { 'idempotency-key': 'surrogate-1' },
    });
    expectError(keyed, 400, 'invalid_parameter', 'input');
    assert.equal(await count('executions'), before0);
    // A surrogate pair is well-formed: emoji are fine.
    expectStatus(await api.request('POST', `/v1/agents/${agentId}/execute`, { key: admin.key, body: { input: 'hi 😀' } }), 202);
  });

  it('names the dotted path of the field, nested values and keys alike, on every route', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', `/v1/agents/${agentId}/execute`, { input: 'ok', metadata: { note: '\ud83d' } }, 'metadata.note'],
      ['POST', `/v1/agents/${agentId}/execute`, { input: 'ok', metadata: { ['k\udfff']: 'v' } }, 'metadata'],
      ['POST', '/v1/keys', { name: 'a\udc00' }, 'name'],
      ['POST', '/v1/agents', { name: 'x', tools: [{ name: 't', url: 'https://example.com', parameters: { type: 'object', properties: { q: { type: 'string', description: '\ud800' } } } }] }, 'tools.0.parameters.properties.q.description'],
      ['PATCH', `/v1/agents/${agentId}`, { description: 'bad \udbff' }, 'description'],
      ['POST', '/v1/webhooks', { url: 'https://example.com/hook', events: ['*'], description: '\ud800' }, 'description'],
    ];
    const keys = await count('api_keys');
    for (const [method, path, body, param] of cases) {
      expectError(await api.request(method, path, { key: admin.key, body }), 400, 'invalid_parameter', param);
    }
    assert.equal(await count('api_keys'), keys);
    const agent = await api.request<{ description: string | null }>('GET', `/v1/agents/${agentId}`, { key: admin.key });
    assert.equal(agent.body.description, null, 'the PATCH changed nothing');
  });
});

describe('the dashboard face (tRPC)', () => {
  it('refuses a lone surrogate in a mutation or a query with invalid_parameter and the path, nothing written', async () => {
    const executions = await count('executions');
    const start = await dashboardCall(api, admin.workspace, 'mutation', 'executions.execute', { id: agentId, input: 'secret \ud800' });
    assert.equal(start.status, 400, JSON.stringify(start.error));
    assert.deepEqual(start.error?.data.apiError, { type: 'invalid_request_error', code: 'invalid_parameter', param: 'input' });
    assert.equal(await count('executions'), executions);

    const key = await dashboardCall(api, admin.workspace, 'mutation', 'keys.create', { name: 'x', scopes: ['agents:read'], environment: 'test', extra: { deep: ['ok', '\udc00'] } });
    assert.equal(key.status, 400);
    assert.equal(key.error?.data.apiError?.param, 'extra.deep.1');

    const list = await dashboardCall(api, admin.workspace, 'query', 'executions.list', { after: 'exe_\ud800' });
    assert.equal(list.status, 400);
    assert.equal(list.error?.data.apiError?.param, 'after');
    const fine = await dashboardCall(api, admin.workspace, 'mutation', 'executions.execute', { id: agentId, input: 'hello 😀' });
    assert.equal(fine.status, 200, JSON.stringify(fine.error));
  });
});
