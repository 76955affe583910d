// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { setResolverForTests, type Resolver } from '../../server/platform/net/url-guard';
import { execute } from './helpers';

// SSRF refusals of HTTP and MCP tool URLs (docs/security.md) say that the host does not resolve to an
// allowed address, and nothing more of it: not the address, not whether the name resolved at
// all (then, the same words for every refused name, the setting that allows private addresses).
// The attack: a tenant probes names of our network (`db.corp.example`, a metadata alias) and
// reads from the refusal what they resolve to. Private URLs are NOT allowed here (the
// production default); a fake resolver stands in for DNS in this process.

const answers: Record<string, string> = {
  'public.example.com': '93.184.215.14',
  'db.corp.example.com': '10.1.2.3',
  'metadata-alias.example.com': '169.254.169.254',
  'mapped.example.com': '::ffff:127.0.0.1',
};
const resolver: Resolver = async (hostname) => {
  const address = answers[hostname];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

const REFUSAL = new RegExp(
  "^'tools\\.0\\.url' has a host that does not resolve to an allowed address\\. This server refuses loopback, private and " +
    'link-local addresses; to use one in development, run it with WEBHOOK_ALLOW_PRIVATE_URLS=true \\(the default under `npm run dev`\\)$',
);

let api: TestServer;
let owner: SeededKey;
let tools: ToolServer;
let mcp: FakeMcpServer;
before(async () => {
  setResolverForTests(resolver);
  tools = await startToolServer();
  mcp = await startMcpServer();
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  setResolverForTests(null);
  await api?.close();
  await tools?.close();
  await mcp?.close();
});

const tool = (url: string) => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url,
  method: 'POST',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
});
const agents = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from agents`))[0]!.n;

describe('tool URLs that resolve to non-public addresses', () => {
  it('create and update refuse them with one message that names no address, whatever DNS answered', async () => {
    const kept = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'kept', tools: [tool('http://public.example.com/t')] } });
    expectStatus(kept, 201);
    for (const host of ['db.corp.example.com', 'metadata-alias.example.com', 'mapped.example.com', 'nowhere.example.com']) {
      const n = await agents();
      const created = expectError(
        await api.request('POST', '/v1/agents', { key: owner.key, body: { name: 'probe', tools: [tool(`http://${host}/x`)] } }),
        400,
        'invalid_parameter',
        'tools.0.url',
      );
      assert.match(created.message, REFUSAL);
      assert.equal(await agents(), n, 'nothing written');
      const updated = expectError(
        await api.request('PATCH', `/v1/agents/${kept.body.id}`, { key: owner.key, body: { tools: [tool(`http://${host}/x`)] } }),
        400,
        'invalid_parameter',
        'tools.0.url',
      );
      assert.match(updated.message, REFUSAL);
    }
    const got = await api.request<{ tools: { url: string }[] }>('GET', `/v1/agents/${kept.body.id}`, { key: owner.key });
    assert.equal(got.body.tools[0]!.url, 'http://public.example.com/t');
  });

  it('a name that resolves to 127.0.0.1 by the time of the call (DNS rebinding): the tool result says the same, and nothing is reached', async () => {
    const port = new URL(tools.url).port;
    answers['later.example.com'] = '93.184.215.14';
    const res = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'rebound', tools: [tool(`http://later.example.com:${port}/echo`)] } });
    expectStatus(res, 201);
    answers['later.example.com'] = '127.0.0.1';
    const before = tools.requests.length;
    const run = await execute(api, owner.key, res.body.id, { input: 'lookup order 1', wait: true });
    expectStatus(run, 200);
    const result = run.body.steps[0]!.toolResults[0]!;
    assert.equal(result.isError, true);
    assert.deepEqual(result.result, { error: 'The tool URL has a host that does not resolve to an allowed address' });
    assert.doesNotMatch(JSON.stringify(run.body), /127\.0\.0\.1|loopback/);
    assert.equal(tools.requests.length, before, 'the tool server was not reached');
  });
});

describe('MCP tool URLs (the same guard)', () => {
  const docs = (url: string) => ({ type: 'mcp', name: 'docs', url, headers: { Authorization: 'Bearer s3cret-mcp' } });

  it('create and update refuse a private address, and names that resolve to one, with the same message', async () => {
    const n = await agents();
    expectError(await api.request('POST', '/v1/agents', { key: owner.key, body: { name: 'p', tools: [docs(mcp.url)] } }), 400, 'invalid_parameter', 'tools.0.url');
    for (const url of ['http://localhost/mcp', 'http://169.254.169.254/mcp', 'http://[::1]/mcp']) {
      expectError(await api.request('POST', '/v1/agents', { key: owner.key, body: { name: 'p', tools: [docs(url)] } }), 400, 'invalid_parameter', 'tools.0.url');
    }
    const probed = expectError(await api.request('POST', '/v1/agents', { key: owner.key, body: { name: 'p', tools: [docs('http://db.corp.example.com/mcp')] } }), 400, 'invalid_parameter', 'tools.0.url');
    assert.match(probed.message, REFUSAL);
    assert.equal(await agents(), n, 'nothing written');
    assert.equal(mcp.requests.length, 0, 'the MCP server was not reached');
  });

  it('a name that resolves to 127.0.0.1 by the time of the run: the run fails tool_error, and the server is not reached', async () => {
    const port = new URL(mcp.url).port;
    answers['mcp-later.example.com'] = '93.184.215.14';
    const res = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'rebound', tools: [docs(`http://mcp-later.example.com:${port}/mcp`)] } });
    expectStatus(res, 201);
    answers['mcp-later.example.com'] = '127.0.0.1';
    const run = await execute(api, owner.key, res.body.id, { input: 'docs_search x', wait: true });
    expectStatus(run, 200);
    assert.equal(run.body.status, 'failed');
    assert.deepEqual(run.body.error, {
      code: 'tool_error',
      message: "The MCP tool 'docs' could not be used: the server URL has a host that does not resolve to an allowed address",
    });
    assert.doesNotMatch(JSON.stringify(run.body), /127\.0\.0\.1|loopback|s3cret/);
    assert.equal(mcp.requests.length, 0, 'the MCP server was not reached');
  });
});
