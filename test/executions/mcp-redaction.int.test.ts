// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { execute, readStream, type Execution } from './helpers';

// An MCP server's header values are the agent owner's secrets (docs/security.md, "Agent tools"):
// whatever the server writes is blanked of them before the model, the run's record and its
// events see it. Tool results were; a server that put the value in a tool's description, title,
// input schema or name had it sent to the model provider and kept in the run's output. The
// model here is a fake OpenAI-compatible server, so what the provider received can be read.

let api: TestServer;
let mcp: FakeMcpServer;
let fake: FakeOpenAI;
let owner: SeededKey;
before(async () => {
  mcp = await startMcpServer();
  fake = await startFakeOpenAI();
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', OPENAI_COMPATIBLE_BASE_URL: fake.url } });
  // Live keys run real models (the fake); test keys would run the sandbox.
  owner = await api.seed.key({ ...UNLIMITED, environment: 'live' });
});
after(async () => {
  await api?.close();
  await mcp?.close();
  await fake?.close();
});

const SECRET = 'mcp-secret-9f3a "quoted" \\ end';
/** The agent's MCP tool: the server (which leaks with `X-Leak: on`) gets the secret as its Authorization. */
const leaky = () => ({ type: 'mcp', name: 'docs', url: mcp.url, headers: { Authorization: SECRET, 'X-Leak': 'on' } });

async function run(input: string): Promise<{ exe: Execution; events: string }> {
  const agent = await api.request<{ id: string }>('POST', '/v1/agents', {
    key: owner.key,
    body: { name: 'leaky MCP', model: 'openai-compatible/fake-1', tools: [leaky()] },
  });
  expectStatus(agent, 201);
  const res = await execute(api, owner.key, agent.body.id, { input, wait: true });
  expectStatus(res, 200);
  const stream = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: owner.key });
  return { exe: res.body, events: stream.text };
}

/** Whether a text holds the secret, as it is or as JSON writes it inside a string. */
const leaks = (text: string) => text.includes(SECRET) || text.includes(JSON.stringify(SECRET).slice(1, -1)) || text.includes('mcp-secret-9f3a');

describe('an MCP server that writes its header values into what the model reads', () => {
  it('descriptions, titles, input schemas and names reach the model provider blanked; the call still works', async () => {
    fake.reset();
    const { exe, events } = await run('please docs_leak refunds');
    assert.equal(exe.status, 'succeeded', JSON.stringify(exe.error));
    const offered = fake.requests[0]!.body.tools!.map((t) => t.function as { name: string; description?: string; parameters?: unknown });
    const leak = offered.find((t) => t.name === 'docs_leak')!;
    assert.equal(leak.description, 'Searches with the key [redacted]');
    assert.match(JSON.stringify(leak.parameters), /Send it with \[redacted\]/);
    assert.equal(offered.find((t) => t.name === 'docs_titled')!.description, 'Title with [redacted]');
    assert.ok(offered.some((t) => t.name === 'docs_find__redacted_'), offered.map((t) => t.name).join(', '));
    for (const request of fake.requests) assert.ok(!leaks(JSON.stringify(request.body)), 'the model provider never received the secret');
    // The model's call was made (the server received the header), and its result blanked too.
    const call = mcp.calls.findLast((c) => c.tool === 'leak')!;
    assert.equal(call.headers.authorization, SECRET);
    assert.deepEqual(exe.steps[0]!.toolResults[0]!.result, { content: [{ type: 'text', text: 'searched with [redacted]' }] });
    assert.ok(!leaks(JSON.stringify(exe)), 'the execution never holds the secret');
    assert.ok(!leaks(events), 'the event stream never holds the secret');
    const stored = await api.query<{ data: unknown }>(sql`select data from execution_events where execution_id = ${exe.id}`);
    assert.ok(!leaks(JSON.stringify(stored)), 'the stored events never hold the secret');
  });

  it("a value in the schema's enum, default or a property's name is blanked, so the model cannot send it back", async () => {
    fake.reset();
    await run('docs_leak x');
    const leak = fake.requests[0]!.body.tools!.find((t) => t.function.name === 'docs_leak')!.function;
    const schema = leak.parameters as { properties: Record<string, { enum?: string[]; default?: string }> };
    assert.deepEqual(schema.properties.mode!.enum, ['plain', '[redacted]']);
    assert.equal(schema.properties.mode!.default, '[redacted]');
    assert.ok('as [redacted]' in schema.properties, Object.keys(schema.properties).join(', '));
  });
});
