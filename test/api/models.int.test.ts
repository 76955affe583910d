// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dashboardCall, testSessions } from '../dashboard';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';

// GET /v1/models: every provider this server knows, whether it is configured here
// (the sandbox always is), and example `model` values, so a program can see what will run
// before it creates an agent. Here only the OpenAI-compatible provider is configured.

interface ModelList {
  data: { provider: string; configured: boolean; examples: string[] }[];
}

let api: TestServer;
let admin: SeededKey;
before(async () => {
  api = await startServer({
    env: { OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' },
    dashboardSession: testSessions(),
  });
  admin = await api.seed.key({ name: 'admin', environment: 'live', ...UNLIMITED });
});
after(() => api?.close());

describe('GET /v1/models', () => {
  it('lists every provider, whether it is configured here, and example models; not paginated', async () => {
    const res = await api.request<ModelList>('GET', '/v1/models', { key: admin.key });
    expectStatus(res, 200);
    assert.deepEqual(Object.keys(res.body), ['data']);
    assert.deepEqual(
      res.body.data.map((p) => [p.provider, p.configured]),
      [
        ['sandbox', true],
        ['openai', false],
        ['anthropic', false],
        ['openai-compatible', true],
      ],
    );
    for (const p of res.body.data) {
      assert.deepEqual(Object.keys(p), ['provider', 'configured', 'examples']);
      assert.ok(p.examples.length > 0, p.provider);
      for (const model of p.examples) assert.ok(model.startsWith(`${p.provider}/`), model);
    }
  });

  it('gives examples an agent can be created with', async () => {
    const { body } = await api.request<ModelList>('GET', '/v1/models', { key: admin.key });
    for (const model of body.data.flatMap((p) => p.examples)) {
      expectStatus(await api.request('POST', '/v1/agents', { key: admin.key, body: { name: model, model } }), 201);
    }
  });

  it('takes no parameters', async () => {
    expectError(await api.request('GET', '/v1/models?limit=5', { key: admin.key }), 400, 'unknown_parameter', 'limit');
  });

  it('is the same list on the dashboard face', async () => {
    const rest = await api.request<ModelList>('GET', '/v1/models', { key: admin.key });
    const dash = await dashboardCall<ModelList>(api, admin.workspace, 'query', 'models.list', {}, { environment: 'live' });
    assert.equal(dash.status, 200, JSON.stringify(dash.error));
    assert.deepEqual(dash.result, rest.body);
  });
});

securitySuite(() => api, { method: 'GET', path: '/v1/models', scope: 'agents:read', successStatus: 200 });
