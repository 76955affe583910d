// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { ErrorCode } from '../../server/platform/errors';
import { expectError, expectStatus } from '../expect';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { execute } from './helpers';

// MCP tools on agents (docs/api.md, "Agents"): their `headers` are write-only — every response and
// event shows "********" — and on update "********" keeps the stored value (proved by what the
// MCP server receives on a run); what is refused, with the field to fix.

let api: TestServer;
let mcp: FakeMcpServer;
let owner: SeededKey;
before(async () => {
  mcp = await startMcpServer();
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  await api?.close();
  await mcp?.close();
});

const SECRET = 'Bearer mcp-secret-4242';
const docs = (over: Record<string, unknown> = {}) => ({ type: 'mcp', name: 'docs', url: mcp.url, headers: { Authorization: SECRET, 'X-Team': 'support' }, ...over });
const http = { type: 'http', name: 'lookup', description: 'Looks up', url: 'https://93.184.215.14/t', parameters: { type: 'object' } };

interface AgentBody {
  id: string;
  tools: Record<string, unknown>[];
}
const create = (body: Record<string, unknown>) => api.request<AgentBody>('POST', '/v1/agents', { key: owner.key, body: { name: 'MCP user', ...body } });
const update = (id: string, body: Record<string, unknown>) => api.request<AgentBody>('PATCH', `/v1/agents/${id}`, { key: owner.key, body });
const count = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from agents`))[0]!.n;
const storedTools = async (id: string) => (await api.query<{ tools: Record<string, unknown>[] }>(sql`select tools from agents where id = ${id}`))[0]!.tools;

/** Runs the agent on an input naming docs_search; the headers the MCP server received on the call. */
async function headersOfARun(id: string) {
  const before = mcp.calls.length;
  const run = await execute(api, owner.key, id, { input: 'docs_search refunds', wait: true });
  assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
  const call = mcp.calls.slice(before).find((c) => c.tool === 'search');
  assert.ok(call, 'the MCP server was called');
  return call.headers;
}

describe('MCP tools on agents', () => {
  it('create, get, list, update and their events show header values as ********; the database holds them, sealed', async () => {
    const created = await create({ tools: [http, docs({ allowedTools: ['search', 'search'] })] });
    expectStatus(created, 201);
    const shown = { type: 'mcp', name: 'docs', url: mcp.url, allowedTools: ['search'], headers: { Authorization: '********', 'X-Team': '********' }, approval: 'never' };
    assert.deepEqual(created.body.tools[1], shown);
    const got = await api.request<AgentBody>('GET', `/v1/agents/${created.body.id}`, { key: owner.key });
    assert.deepEqual(got.body.tools[1], shown);
    const listed = await api.request<{ data: AgentBody[] }>('GET', '/v1/agents?limit=100', { key: owner.key });
    assert.deepEqual(listed.body.data.find((a) => a.id === created.body.id)!.tools[1], shown);
    const updated = await update(created.body.id, { name: 'renamed' });
    assert.deepEqual(updated.body.tools[1], shown);
    const events = await api.request<{ data: { type: string; data: { object: AgentBody } }[] }>('GET', '/v1/events?limit=100', { key: owner.key });
    const ours = events.body.data.filter((e) => e.data.object.id === created.body.id);
    assert.deepEqual(ours.map((e) => e.type).sort(), ['agent.created', 'agent.updated']);
    for (const e of ours) assert.deepEqual(e.data.object.tools[1], shown);
    for (const res of [created, got, listed, updated, events]) assert.doesNotMatch(res.text, /mcp-secret-4242|support/);
    const stored = (await storedTools(created.body.id))[1]!.headers as Record<string, string>;
    assert.doesNotMatch(JSON.stringify(stored), /mcp-secret-4242|support/);
    const opened = Object.fromEntries(Object.entries(stored).map(([name, value]) => [name, api.opened(`agents.mcp_header:${created.body.id}:docs:${name.toLowerCase()}`, value)]));
    assert.deepEqual(opened, { Authorization: SECRET, 'X-Team': 'support' });
    // allowedTools absent: null (every tool the server lists); headers absent: {}.
    const bare = await create({ tools: [{ type: 'mcp', name: 'docs', url: mcp.url }] });
    assert.deepEqual(bare.body.tools[0], { type: 'mcp', name: 'docs', url: mcp.url, allowedTools: null, headers: {}, approval: 'never' });
  });

  it('approval {tools} pauses the listed tool’s calls only; approved, the server gets the call once', async () => {
    const listed = await create({ tools: [docs({ approval: { tools: ['search'] } })] });
    expectStatus(listed, 201);
    const before = mcp.calls.length;
    const run = await execute(api, owner.key, listed.body.id, { input: 'docs_search refunds', wait: true });
    assert.equal(run.body.status, 'requires_action', JSON.stringify(run.body.error));
    assert.equal(run.body.requiredAction!.toolCalls[0]!.tool, 'docs_search');
    assert.equal(mcp.calls.length, before, 'not called before the decision');
    const decided = await api.request<typeof run.body>('POST', `/v1/executions/${run.body.id}/approvals`, {
      key: owner.key,
      body: { decisions: [{ toolCallId: run.body.requiredAction!.toolCalls[0]!.id, approve: true }], wait: true },
    });
    assert.equal(decided.body.status, 'succeeded', JSON.stringify(decided.body.error));
    assert.equal(mcp.calls.slice(before).filter((c) => c.tool === 'search').length, 1);
    // Another tool listed: this one runs without a decision.
    const other = await create({ tools: [docs({ approval: { tools: ['delete_page'] } })] });
    expectStatus(other, 201);
    assert.equal((await execute(api, owner.key, other.body.id, { input: 'docs_search refunds', wait: true })).body.status, 'succeeded');
  });

  it('PATCH with ******** keeps the stored value (the server receives it); a new value replaces it; a changed origin needs the value', async () => {
    const created = await create({ tools: [docs()] });
    expectStatus(created, 201);
    const id = created.body.id;
    assert.equal((await headersOfARun(id)).authorization, SECRET);
    // The agent sent back as it was read (headers masked), with another tool list.
    const read = (await api.request<AgentBody>('GET', `/v1/agents/${id}`, { key: owner.key })).body;
    expectStatus(await update(id, { tools: [...read.tools, http] }), 200);
    let seen = await headersOfARun(id);
    assert.equal(seen.authorization, SECRET);
    assert.equal(seen['x-team'], 'support');
    // One value changed, one kept, one header dropped (names ignore case).
    expectStatus(await update(id, { tools: [docs({ headers: { authorization: '********', 'X-New': 'fresh' } })] }), 200);
    seen = await headersOfARun(id);
    assert.equal(seen.authorization, SECRET);
    assert.equal(seen['x-new'], 'fresh');
    assert.equal(seen['x-team'], undefined);
    // The same URL origin keeps it; another origin, another tool name or a header never stored does not.
    const moved = docs({ url: mcp.url.replace('127.0.0.1', 'localhost'), headers: { authorization: '********' } });
    assert.match(expectError(await update(id, { tools: [moved] }), 400, 'invalid_parameter', 'tools.0.headers').message, /URL changed/);
    expectError(await update(id, { tools: [docs({ name: 'docs2', headers: { authorization: '********' } })] }), 400, 'invalid_parameter', 'tools.0.headers');
    expectError(await update(id, { tools: [docs({ headers: { 'X-Other': '********' } })] }), 400, 'invalid_parameter', 'tools.0.headers');
    // On create there is nothing stored to keep.
    expectError(await create({ tools: [docs({ headers: { Authorization: '********' } })] }), 400, 'invalid_parameter', 'tools.0.headers');
    assert.equal((await headersOfARun(id)).authorization, SECRET, 'the refused updates changed nothing');
  });

  it('refuses bad names, headers and allowedTools with the field to fix, and writes nothing', async () => {
    const n = await count();
    const refused = async (tools: unknown[], param: string, code: ErrorCode = 'invalid_parameter') => {
      const error = expectError(await create({ tools }), 400, code, param);
      assert.doesNotMatch(error.message, /mcp-secret-4242/);
      return error;
    };
    await refused([http, docs({ name: 'LOOKUP' })], 'tools.1.name');
    await refused([docs(), docs({ name: 'Docs' })], 'tools.1.name');
    await refused([docs({ name: 'has space' })], 'tools.0.name');
    await refused([{ name: 'docs', url: mcp.url }], 'tools.0.type', 'missing_required_field');
    await refused([docs({ type: 'grpc' })], 'tools.0.type');
    await refused([docs({ url: 'ftp://example.com/mcp' })], 'tools.0.url');
    await refused([docs({ extra: 1 })], 'tools.0.extra', 'unknown_parameter');
    // allowedTools: 1–100 names of 1–128 characters, or null.
    await refused([docs({ allowedTools: Array.from({ length: 101 }, (_, i) => `t${i}`) })], 'tools.0.allowedTools');
    await refused([docs({ allowedTools: [] })], 'tools.0.allowedTools');
    await refused([docs({ allowedTools: ['x'.repeat(129)] })], 'tools.0.allowedTools');
    await refused([docs({ allowedTools: [''] })], 'tools.0.allowedTools');
    // headers: ≤ 20, valid unreserved names once each, string values ≤ 4 KB on one line.
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    await refused([docs({ headers: many })], 'tools.0.headers');
    for (const name of ['Bad Name', 'x:y', 'é', 'Host', 'content-length', 'Transfer-Encoding', 'Connection', 'mcp-session-id', 'Content-Type']) {
      await refused([docs({ headers: { [name]: 'v' } })], 'tools.0.headers');
    }
    await refused([docs({ headers: { 'X-A': 'v', 'x-a': 'w' } })], 'tools.0.headers');
    for (const value of ['line\r\nX-Injected: 1', 'a\nb', 'a\rb', 'bell\u0007']) await refused([docs({ headers: { 'X-A': value } })], 'tools.0.headers');
    assert.match((await refused([docs({ headers: { 'X-A': 'x'.repeat(4097) } })], 'tools.0.headers')).message, /4 KB/);
    await refused([docs({ headers: { 'X-A': 5 } })], 'tools.0.headers.X-A');
    // Names every object inherits, which zod would drop without a word (raw JSON: `__proto__` as an own key).
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const raw = `{"name":"x","tools":[{"type":"mcp","name":"docs","url":"${mcp.url}","headers":{"${name}":"v"}}]}`;
      const res = await api.request('POST', '/v1/agents', { key: owner.key, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'invalid_parameter', 'tools.0.headers');
    }
    assert.equal(await count(), n, 'nothing written');
    // At the bounds: accepted.
    const bounds = { ...Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`X-H${i}`, 'v'])), 'X-Big': 'é'.repeat(2048) };
    expectStatus(await create({ tools: [docs({ headers: bounds, allowedTools: Array.from({ length: 100 }, (_, i) => `t${i}`.padEnd(128, 'x')) })] }), 201);
  });
});
