// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { ErrorCode } from '../../server/platform/errors';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';

// Every field of an agent at its bounds (docs/api.md, "Agents"), HTTP tools (names, JSON Schemas,
// URLs through the guard), and input an attacker would send: nothing invalid is ever written.

let api: TestServer;
let admin: SeededKey;
before(async () => {
  api = await startServer();
  admin = await api.seed.key({ ...UNLIMITED });
});
after(() => api?.close());

const count = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from agents`))[0]!.n;
const create = (body: Record<string, unknown>) => api.request<{ id: string }>('POST', '/v1/agents', { key: admin.key, body });
const tool = (over: Record<string, unknown> = {}) => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url: 'https://93.184.215.14/tool',
  method: 'POST',
  parameters: { type: 'object', properties: { id: { type: 'string' } } },
  ...over,
});

async function refused(body: Record<string, unknown>, code: ErrorCode, param: string) {
  const n = await count();
  expectError(await create({ name: 'x', ...body }), 400, code, param);
  assert.equal(await count(), n, 'nothing written');
}

describe('agent fields at their bounds', () => {
  it('name is required, trimmed, 1–100 characters', async () => {
    await refused({ name: undefined }, 'missing_required_field', 'name');
    await refused({ name: '   ' }, 'invalid_parameter', 'name');
    await refused({ name: 'n'.repeat(101) }, 'invalid_parameter', 'name');
    expectStatus(await create({ name: 'n'.repeat(100) }), 201);
  });

  it('maxSteps 1–20 and timeoutSeconds 1–900, whole JSON numbers only', async () => {
    for (const [field, ok, bad] of [['maxSteps', [1, 20], [0, 21, 2.5, '5']], ['timeoutSeconds', [1, 900], [0, 901, '120']]] as const) {
      for (const v of ok) expectStatus(await create({ name: 'x', [field]: v }), 201);
      for (const v of bad) await refused({ [field]: v }, 'invalid_parameter', field);
    }
  });

  it('temperature 0–2 or null; model provider/model with a known provider', async () => {
    expectStatus(await create({ name: 'x', temperature: 0 }), 201);
    expectStatus(await create({ name: 'x', temperature: 2 }), 201);
    await refused({ temperature: 2.01 }, 'invalid_parameter', 'temperature');
    await refused({ temperature: -0.1 }, 'invalid_parameter', 'temperature');
    for (const model of ['gpt-4o', 'nope/x', 'openai/', '/x', 'sandbox/has space']) await refused({ model }, 'invalid_parameter', 'model');
    for (const model of ['sandbox/echo', 'openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', 'openai-compatible/llama3.1:8b']) {
      expectStatus(await create({ name: 'x', model }), 201);
    }
  });

  it('metadata: ≤ 50 string values, no inherited-name keys (even sent as raw JSON)', async () => {
    await refused({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'invalid_parameter', 'metadata');
    await refused({ metadata: { a: 1 } }, 'invalid_parameter', 'metadata.a');
    const n = await count();
    for (const key of ['__proto__', 'constructor', 'toString']) {
      const res = await api.request('POST', '/v1/agents', {
        key: admin.key,
        rawBody: `{"name":"x","metadata":{"${key}":{"polluted":"yes"}}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 400, 'invalid_parameter', 'metadata');
    }
    assert.equal(await count(), n);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('HTTP tools', () => {
  it('names are unique (case-insensitively) and model-safe', async () => {
    await refused({ tools: [tool(), tool({ name: 'LOOKUP' })] }, 'invalid_parameter', 'tools.1.name');
    await refused({ tools: [tool({ name: 'has space' })] }, 'invalid_parameter', 'tools.0.name');
    await refused({ tools: Array.from({ length: 21 }, (_, i) => tool({ name: `t${i}` })) }, 'invalid_parameter', 'tools');
  });

  it('parameters must be a JSON Schema of an object that compiles', async () => {
    await refused({ tools: [tool({ parameters: { type: 'string' } })] }, 'invalid_parameter', 'tools.0.parameters');
    await refused({ tools: [tool({ parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } })] }, 'invalid_parameter', 'tools.0.parameters');
    await refused({ tools: [tool({ parameters: { type: 'object', description: 'x'.repeat(17_000) } })] }, 'invalid_parameter', 'tools.0.parameters');
  });

  it('URLs are refused for loopback, private, link-local/metadata and credentials; a public address is fine', async () => {
    for (const url of ['http://127.0.0.1/x', 'http://127.1/x', 'http://[::1]/x', 'http://169.254.169.254/latest', 'http://10.0.0.1/x', 'http://localhost/x', 'http://user:pw@93.184.215.14/', 'ftp://93.184.215.14/', 'not a url']) {
      await refused({ tools: [tool({ url })] }, 'invalid_parameter', 'tools.0.url');
    }
    expectStatus(await create({ name: 'x', tools: [tool()] }), 201);
  });

  it('unknown fields anywhere are refused, never stored', async () => {
    await refused({ tools: [tool({ secret: 'x' })] }, 'unknown_parameter', 'tools.0.secret');
    await refused({ toolSecret: 'whsec_mine' }, 'unknown_parameter', 'toolSecret');
    await refused({ workspaceId: 'ws_x' }, 'unknown_parameter', 'workspaceId');
  });
});
