import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startToolServer, type ToolServer } from '../../../test/fakes/tool-server';
import { UrlRefused } from '../../platform/net/url-guard';
import { guardedMcpFetch, McpFetchRefused } from './mcp-fetch';
import { modelName } from './mcp-tool';

// The MCP client's fetch (the SSRF guard on its real connections, redirects, the answer cap, no
// server-to-client stream) and the names MCP tools get (docs/executions.md, "MCP tools").

describe('guardedMcpFetch', () => {
  let server: ToolServer;
  before(async () => (server = await startToolServer()));
  after(() => server.close());
  const post = (path: string, fetch = guardedMcpFetch({ allowPrivate: true })) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: '{"a":1}' });

  it('sends the request as given, and hands back the answer', async () => {
    const before = server.requests.length;
    const res = await post('/echo');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: { a: 1 } });
    assert.equal(server.requests.slice(before)[0]!.headers.authorization, 'Bearer x');
  });

  it('refuses a redirect instead of following it', async () => {
    const before = server.requests.length;
    await assert.rejects(post('/redirect'), (err) => err instanceof McpFetchRefused && err.message === 'answered a redirect (HTTP 302), which is not followed');
    assert.deepEqual(server.requests.slice(before).map((r) => r.path), ['/redirect']);
  });

  it('fails an answer past its byte cap while reading it', async () => {
    const res = await post('/big', guardedMcpFetch({ allowPrivate: true, maxBytes: 64 * 1024 }));
    await assert.rejects(res.text(), (err) => {
      for (let e: unknown = err; e instanceof Error; e = e.cause) if (e instanceof McpFetchRefused) return /more than/.test(e.message);
      return false;
    });
  });

  it('answers the server-to-client stream (GET) 405 itself, without a request', async () => {
    const before = server.requests.length;
    const res = await guardedMcpFetch({ allowPrivate: true })(`${server.url}/echo`, { method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 405);
    assert.equal(server.requests.length, before);
  });

  it('refuses private addresses unless allowed: IP literals before connecting, names at connect time', async () => {
    const fetch = guardedMcpFetch({ allowPrivate: false });
    await assert.rejects(post('/echo', fetch), (err) => err instanceof UrlRefused && err.reason === 'non_public_address');
    await assert.rejects(fetch('http://localhost/mcp', { method: 'POST' }), (err) => err instanceof UrlRefused && err.reason === 'blocked_host');
  });
});

describe('modelName', () => {
  it('is <name>_<tool>, in the characters providers accept', () => {
    const taken = new Set<string>();
    assert.equal(modelName('docs', 'search', taken), 'docs_search');
    assert.equal(modelName('docs', 'files.read/v2', taken), 'docs_files_read_v2');
    assert.deepEqual([...taken], ['docs_search', 'docs_files_read_v2']);
  });

  it('past 64 characters, or taken by another tool (ignoring case): 57 characters, _ and a stable hash', () => {
    const long = modelName('docs', 't'.repeat(100), new Set())!;
    assert.equal(long.length, 64);
    assert.match(long, /^docs_t{52}_[0-9a-f]{6}$/);
    assert.equal(modelName('docs', 't'.repeat(100), new Set()), long, 'the same name every run');
    const taken = new Set(['docs_search']);
    const clash = modelName('Docs', 'search', taken)!;
    assert.match(clash, /^Docs_search_[0-9a-f]{6}$/);
    // `a.b` and `a_b` would both be docs_a_b.
    const both = new Set<string>();
    assert.equal(modelName('docs', 'a_b', both), 'docs_a_b');
    assert.match(modelName('docs', 'a.b', both)!, /^docs_a_b_[0-9a-f]{6}$/);
  });
});
