import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startToolServer, type ToolRequest, type ToolServer } from '../../../test/fakes/tool-server';
import { callHttpTool, newToolSecret, type HttpToolSpec } from './http-tool';
import { until } from '../../../test/eventually';

const secret = newToolSecret();
const local = { secrets: [secret], callId: 'call_test1', allowPrivate: true };
const tool = (server: ToolServer, path: string, method: HttpToolSpec['method'] = 'POST'): HttpToolSpec => ({
  name: 'lookup',
  url: `${server.url}${path}`,
  method,
});
const headerMap = (h: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
/** What a tool verifies (docs/executions.md, "Tool signing"): method, the URL it was called at, raw body. */
const content = (server: ToolServer, req: ToolRequest) => `${req.method} ${server.url}${req.url}\n${req.body}`;
// `jsonParse: false`: what is signed is not JSON (verify would parse it after checking it).
const verify = (s: string, server: ToolServer, req: ToolRequest, body = content(server, req)) =>
  new Webhook(s).verify(body, headerMap(req.headers), { jsonParse: false });

describe('callHttpTool', () => {
  let server: ToolServer;
  let other: ToolServer;
  before(async () => {
    server = await startToolServer();
    other = await startToolServer();
  });
  after(async () => {
    await server.close();
    await other.close();
  });

  it('makes Standard Webhooks secrets', () => {
    const s = newToolSecret();
    assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(s.slice(6), 'base64').length, 32);
    assert.notEqual(s, newToolSecret());
  });

  it('POSTs the arguments as JSON, signed so the tool can verify them', async () => {
    const args = { city: 'Zürich', days: 3, nested: { ok: true, list: [1, 'two'] } };
    const result = await callHttpTool(tool(server, '/echo'), args, local);
    assert.deepEqual(result, { ok: true, status: 200, body: { received: args } });

    const req = server.requests.at(-1)!;
    assert.equal(req.method, 'POST');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['user-agent'], 'agent-automation-service/0.1');
    assert.equal(req.headers.accept, 'application/json');
    assert.equal(req.headers['webhook-id'], 'call_test1');
    assert.match(req.headers['webhook-signature'] as string, /^v1,/);
    assert.ok(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000) < 5);
    verify(secret, server, req);
    assert.equal(content(server, req), `POST ${server.url}/echo\n${JSON.stringify(args)}`);

    // Any change to the body, the method or the URL, or another secret, fails verification.
    assert.throws(() => verify(secret, server, req, content(server, req).replace('3', '4')));
    assert.throws(() => verify(secret, server, req, content(server, req).replace('POST ', 'PUT ')));
    assert.throws(() => verify(secret, server, req, content(server, req).replace('/echo', '/fail')));
    assert.throws(() => new Webhook(secret).verify(req.body, headerMap(req.headers)), /No matching signature/, 'the body alone is not what is signed');
    assert.throws(() => verify(newToolSecret(), server, req));
  });

  it('signs with every secret given (a rotated-out one in its 24 h), each verifying on its own', async () => {
    const previous = newToolSecret();
    await callHttpTool(tool(server, '/echo'), { a: 1 }, { ...local, secrets: [secret, previous] });
    const req = server.requests.at(-1)!;
    assert.equal((req.headers['webhook-signature'] as string).split(' ').length, 2);
    verify(secret, server, req);
    verify(previous, server, req);
  });

  it('sends {} for missing arguments and keeps extra headers without letting them replace the signature', async () => {
    const result = await callHttpTool(tool(server, '/echo', 'POST'), undefined, {
      ...local,
      headers: { 'X-Api-Key': 'k1', 'Webhook-Signature': 'v1,forged' },
    });
    assert.deepEqual(result.body, { received: {} });
    const req = server.requests.at(-1)!;
    assert.equal(req.headers['x-api-key'], 'k1');
    assert.equal(req.body, '{}');
    assert.doesNotMatch(req.headers['webhook-signature'] as string, /forged/);
    verify(secret, server, req);
  });

  it('sends GET arguments in the query string and signs the URL with its query (the body is empty)', async () => {
    const result = await callHttpTool(tool(server, '/echo?fixed=1#frag', 'GET'), { q: 'a b&c', limit: 5, flags: ['x'], skip: undefined }, local);
    assert.deepEqual(result, { ok: true, status: 200, body: { fixed: '1', q: 'a b&c', limit: '5', flags: '["x"]' } });
    const req = server.requests.at(-1)!;
    assert.equal(req.method, 'GET');
    assert.equal(req.body, '');
    assert.equal(req.headers['content-type'], undefined);
    assert.equal(content(server, req), `GET ${server.url}/echo?fixed=1&q=a+b%26c&limit=5&flags=%5B%22x%22%5D\n`);
    verify(secret, server, req);
    // The attack the old signature (over the empty body only) let through: the same headers on another query.
    assert.throws(() => verify(secret, server, req, content(server, req).replace('limit=5', 'limit=500')));
    assert.throws(() => new Webhook(secret).verify('', headerMap(req.headers)), /No matching signature/);
  });

  it('a GET whose arguments name a query parameter fixed in the URL is refused without a request', async () => {
    const count = server.requests.length;
    for (const args of [{ fixed: '2' }, { q: 'x', fixed: 1 }]) {
      const result = await callHttpTool(tool(server, '/echo?fixed=1&other=a', 'GET'), args, local);
      assert.deepEqual(result, { ok: false, error: "Not called: the argument 'fixed' names a query parameter that the tool's URL fixes" });
    }
    // Percent-encoded in the URL, the name is still the same parameter; non-object arguments travel as `args`.
    assert.equal((await callHttpTool(tool(server, '/echo?fi%78ed=1', 'GET'), { fixed: 'b' }, local)).ok, false);
    assert.equal((await callHttpTool(tool(server, '/echo?args=1', 'GET'), 'text', local)).ok, false);
    assert.equal(server.requests.length, count);
    // An undefined value is not sent, so it does not count; other names are added after the fixed ones.
    const ok = await callHttpTool(tool(server, '/echo?fixed=1', 'GET'), { fixed: undefined, q: 'x' }, local);
    assert.deepEqual(ok.body, { fixed: '1', q: 'x' });
    // POST arguments travel in the body: the URL's query is not theirs to collide with.
    assert.equal((await callHttpTool(tool(server, '/echo?fixed=1'), { fixed: '2' }, local)).ok, true);
  });

  it('reports a non-2xx answer with its status and body', async () => {
    const result = await callHttpTool(tool(server, '/fail'), { a: 1 }, local);
    assert.deepEqual(result, { ok: false, status: 500, body: { error: 'boom' }, error: 'The tool answered HTTP 500' });
  });

  it('does not follow redirects', async () => {
    const redirecting = { ...tool(server, '/redirect') };
    const seenByOther = other.requests.length;
    const seenEcho = server.requests.filter((r) => r.path === '/echo').length;
    const result = await callHttpTool(redirecting, { a: 1 }, local);
    assert.deepEqual(result, { ok: false, status: 302, error: 'The tool answered a redirect (3xx), which is not followed' });
    assert.equal(server.requests.filter((r) => r.path === '/echo').length, seenEcho);
    assert.equal(other.requests.length, seenByOther);
  });

  it('does not follow a redirect to another server either', async () => {
    const { createServer } = await import('node:http');
    const hop = createServer((_req, res) => {
      res.writeHead(307, { location: `${other.url}/echo` });
      res.end();
    });
    await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
    try {
      const port = (hop.address() as { port: number }).port;
      const before = other.requests.length;
      const result = await callHttpTool({ name: 'hop', url: `http://127.0.0.1:${port}/`, method: 'POST' }, {}, local);
      assert.equal(result.ok, false);
      assert.equal(result.status, 307);
      assert.equal(other.requests.length, before);
    } finally {
      hop.closeAllConnections();
      await new Promise<void>((resolve) => hop.close(() => resolve()));
    }
  });

  it('gives up after timeoutMs and says so', async () => {
    const started = Date.now();
    const abortedBefore = server.aborted;
    const result = await callHttpTool(tool(server, '/slow'), {}, { ...local, timeoutMs: 200 });
    assert.deepEqual(result, { ok: false, error: 'The tool did not answer within 0.2 s' });
    assert.ok(Date.now() - started < 2_000);
    await until('the server saw the call aborted', () => server.aborted > abortedBefore, { timeoutMs: 2_000 });
  });

  it('truncates a large answer at maxBytes', async () => {
    const result = await callHttpTool(tool(server, '/big'), {}, local);
    assert.equal(result.ok, true);
    assert.equal(result.status, 200);
    assert.equal(result.truncated, true);
    assert.equal(typeof result.body, 'string');
    assert.equal(Buffer.byteLength(result.body as string), 100 * 1024);
    assert.ok((result.body as string).startsWith('{"data":"xxx'));

    const small = await callHttpTool(tool(server, '/big'), {}, { ...local, maxBytes: 10 });
    assert.deepEqual(small, { ok: true, status: 200, body: '{"data":"x', truncated: true });
  });

  it('rethrows the caller’s abort instead of turning it into a result, and drops the connection', async () => {
    const controller = new AbortController();
    const abortedBefore = server.aborted;
    const reason = new Error('execution cancelled');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await assert.rejects(callHttpTool(tool(server, '/slow'), {}, { ...local, signal: controller.signal }), (err) => err === reason);
    assert.ok(Date.now() - started < 1_000);
    await until('the server saw the call aborted', () => server.aborted > abortedBefore, { timeoutMs: 2_000 });

    // Already aborted: rejects without calling.
    const count = server.requests.length;
    await assert.rejects(callHttpTool(tool(server, '/echo'), {}, { ...local, signal: AbortSignal.abort(reason) }), (err) => err === reason);
    assert.equal(server.requests.length, count);
  });

  it('refuses a private URL when private addresses are not allowed, without connecting', async () => {
    const count = server.requests.length;
    const result = await callHttpTool(tool(server, '/echo'), { a: 1 }, { ...local, allowPrivate: false });
    assert.deepEqual(result, { ok: false, error: 'The tool URL uses a loopback address (127.0.0.1)' });
    const byName = await callHttpTool({ ...tool(server, '/echo'), url: server.url.replace('127.0.0.1', 'localhost') + '/echo' }, {}, { ...local, allowPrivate: false });
    assert.equal(byName.ok, false);
    assert.match(byName.error!, /^The tool URL /);
    assert.equal(server.requests.length, count);
  });

  it('turns a connection failure into a safe message', async () => {
    const gone = await startToolServer();
    const url = gone.url;
    await gone.close();
    const result = await callHttpTool({ name: 'gone', url: `${url}/echo`, method: 'POST' }, {}, local);
    assert.deepEqual(result, { ok: false, error: 'The tool refused the connection' });
  });
});
