// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expectStatus } from '../expect';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { freePort } from '../processes';
import { execute, readStream, waitFor, type Execution } from './helpers';
import { until } from '../eventually';

// MCP tools in a run (docs/executions.md, "MCP tools"): the runner connects to the agent's MCP
// server over Streamable HTTP, offers its (allowed) tools as `<name>_<tool>`, and the sandbox
// model calls one the input names; the call and its result are recorded like an HTTP tool's.
// A failing call goes back to the model; a server that cannot be reached fails the run.

let api: TestServer;
let mcp: FakeMcpServer;
let owner: SeededKey;
let setTimeouts: (t: { connectMs?: number; callMs?: number } | null) => void;
before(async () => {
  mcp = await startMcpServer();
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await api.seed.key({ ...UNLIMITED });
  // A server module: imported after startServer (test/harness.ts).
  ({ setMcpTimeoutsForTests: setTimeouts } = await import('../../server/modules/tools/mcp-tool'));
});
after(async () => {
  setTimeouts?.(null);
  await api?.close();
  await mcp?.close();
});

const docs = (over: Record<string, unknown> = {}) => ({ type: 'mcp', name: 'docs', url: mcp.url, headers: { Authorization: 'Bearer mcp-secret-7' }, ...over });

async function run(tools: unknown[], input: string): Promise<Execution> {
  const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'MCP user', tools } });
  expectStatus(agent, 201);
  const res = await execute(api, owner.key, agent.body.id, { input, wait: true });
  expectStatus(res, 200);
  return res.body;
}

describe('MCP tools in a run', () => {
  it('the sandbox calls the tool the input names, with the headers; steps and events record it like an HTTP call', async () => {
    const before = mcp.calls.length;
    const exe = await run([docs()], 'please docs_search refund policy');
    assert.equal(exe.status, 'succeeded', JSON.stringify(exe.error));
    const calls = mcp.calls.slice(before);
    assert.deepEqual(calls.map((c) => [c.tool, c.arguments]), [['search', { query: 'refund policy' }]]);
    assert.equal(calls[0]!.headers.authorization, 'Bearer mcp-secret-7');
    assert.equal(exe.steps.length, 2);
    assert.deepEqual(exe.steps[0]!.toolCalls.map((c) => [c.name, c.arguments]), [['docs_search', { query: 'refund policy' }]]);
    const result = exe.steps[0]!.toolResults[0]!;
    assert.equal(result.isError, false);
    assert.deepEqual(result.result, { content: [{ type: 'text', text: 'results for refund policy' }] });
    assert.match(exe.output!, /The docs_search tool returned: .*results for refund policy/);
    const stream = await readStream(`${api.url}/v1/executions/${exe.id}/stream`, { key: owner.key });
    const call = stream.events.find((e) => e.event === 'tool.call')!;
    const answer = stream.events.find((e) => e.event === 'tool.result')!;
    assert.deepEqual([call.data.name, call.data.arguments], ['docs_search', { query: 'refund policy' }]);
    assert.deepEqual([answer.data.name, answer.data.toolCallId, answer.data.isError], ['docs_search', call.data.toolCallId, false]);
    assert.doesNotMatch(JSON.stringify(exe) + stream.text, /mcp-secret-7/);
    // Only POSTs reached the server (no server-to-client stream), and the session was closed or never kept.
    assert.ok(mcp.requests.every((r) => r.method === 'POST' || r.method === 'DELETE'));
  });

  it('allowedTools decides what is offered: a tool not allowed is not callable', async () => {
    const before = mcp.calls.length;
    const exe = await run([docs({ allowedTools: ['search'] })], 'docs_lookup 1042');
    assert.equal(exe.status, 'succeeded');
    assert.equal(exe.output, 'Echo: docs_lookup 1042', 'the model was not offered docs_lookup');
    const allowed = await run([docs({ allowedTools: ['lookup', 'no_such_tool'] })], 'docs_lookup 1042');
    assert.equal(allowed.steps[0]!.toolCalls[0]!.name, 'docs_lookup');
    assert.deepEqual(mcp.calls.slice(before).map((c) => c.tool), ['lookup']);
  });

  it('an isError result goes back to the model as an error; the run succeeds', async () => {
    const exe = await run([docs()], 'docs_fail now');
    assert.equal(exe.status, 'succeeded', JSON.stringify(exe.error));
    const result = exe.steps[0]!.toolResults[0]!;
    assert.deepEqual([result.isError, result.result], [true, { error: 'the index is down' }]);
    assert.equal(exe.output, 'The docs_fail tool returned: {"error":"the index is down"}', 'as an HTTP tool’s failure is');
  });

  it('a call past the timeout is aborted and returned to the model as a tool error', async () => {
    setTimeouts({ callMs: 300 });
    try {
      const aborted = mcp.aborted;
      const exe = await run([docs()], 'docs_slow please');
      assert.equal(exe.status, 'succeeded', JSON.stringify(exe.error));
      assert.deepEqual(exe.steps[0]!.toolResults[0]!.result, { error: 'The MCP tool did not answer within 0.3 s' });
      await until('the server saw the call given up', () => mcp.aborted > aborted, { timeoutMs: 2_000 });
    } finally {
      setTimeouts(null);
    }
  });

  it('a header value the server echoes is blanked out before the model and the record see it', async () => {
    const exe = await run([docs({ headers: { Authorization: 'Bearer mcp-secret-7 "q\\' } })], 'docs_whoami');
    assert.deepEqual(exe.steps[0]!.toolResults[0]!.result, { content: [{ type: 'text', text: 'you sent [redacted]' }] });
    assert.doesNotMatch(JSON.stringify(exe), /mcp-secret-7/);
  });

  it('a result over 100 KB is cut to 100 KB of text, marked truncated', async () => {
    const exe = await run([docs()], 'docs_big');
    const result = exe.steps[0]!.toolResults[0]!.result as { content: string; truncated: boolean };
    assert.equal(result.truncated, true);
    assert.equal(result.content, 'x'.repeat(100 * 1024));
  });

  it('a server that is down, answers 500 or redirects fails the run: tool_error naming the tool', async () => {
    const port = await freePort(); // nothing listens on it
    const down = await run([docs({ name: 'kb', url: `http://127.0.0.1:${port}/mcp` })], 'kb_search x');
    assert.equal(down.status, 'failed');
    assert.deepEqual(down.error, { code: 'tool_error', message: "The MCP tool 'kb' could not be used: the server refused the connection" });
    assert.equal(down.steps.length, 0);
    const broken = await run([docs({ url: `${mcp.base}/broken` })], 'docs_search x');
    assert.deepEqual(broken.error, { code: 'tool_error', message: "The MCP tool 'docs' could not be used: the server answered HTTP 500" });
    const before = mcp.requests.filter((r) => r.path === '/mcp').length;
    const moved = await run([docs({ url: `${mcp.base}/redirect` })], 'docs_search x');
    assert.deepEqual(moved.error, { code: 'tool_error', message: "The MCP tool 'docs' could not be used: the server answered a redirect (HTTP 307), which is not followed" });
    assert.equal(mcp.requests.filter((r) => r.path === '/mcp').length, before, 'the redirect was not followed');
  });

  it('a server that does not answer in time fails the run at the start', async () => {
    setTimeouts({ connectMs: 300 });
    // Reads what it is sent (a socket left unread never sees its client's end), never answers.
    const silent = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const exe = await run([docs({ url: `http://127.0.0.1:${port}/mcp` })], 'docs_search x');
      assert.deepEqual(exe.error, { code: 'tool_error', message: "The MCP tool 'docs' could not be used: the server did not answer within 0.3 s" });
    } finally {
      setTimeouts(null);
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('cancelling a run aborts the MCP call in flight', async () => {
    const agent = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'MCP user', tools: [docs()] } });
    const aborted = mcp.aborted;
    const calls = mcp.calls.length;
    const res = await execute(api, owner.key, agent.body.id, { input: 'docs_slow' });
    await until('the server got the call', () => mcp.calls.length > calls, { timeoutMs: 5_000 });
    expectStatus(await api.request('POST', `/v1/executions/${res.body.id}/cancel`, { key: owner.key }), 200);
    await until('the server saw the call aborted', () => mcp.aborted > aborted, { timeoutMs: 2_000 });
    assert.equal((await waitFor(api, owner.key, res.body.id)).status, 'cancelled');
  });
});
