// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Dashboard } from '../../server/api/http/starting';
import { startServer, type TestServer } from '../harness';

// The first `npm start` builds the dashboard for a minute or two. The server listens before that
// (server/processes/main.ts): /v1 answers, /healthz says "starting", /readyz is 503 until the
// dashboard is ready, a browser gets a page that says what is happening and reloads itself, and
// the dashboard's /api/* answers 503 `starting` in the envelope. Then Next takes over.

const dashboard: Dashboard = { starting: { phase: 'build', since: Date.now() - 42_000 } };
let api: TestServer;
before(async () => {
  api = await startServer({ dashboard });
});
after(() => api?.close());

describe('while the dashboard starts', () => {
  it('a page is a "starting" page that reloads itself, never "connection refused"', async () => {
    for (const path of ['/', '/dashboard/keys', '/signin?callbackUrl=%2Fdashboard']) {
      const res = await api.request('GET', path, { headers: { Accept: 'text/html' } });
      assert.equal(res.status, 503, path);
      assert.equal(res.headers.get('retry-after'), '3');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(res.text, /<meta http-equiv="refresh" content="3">/);
      assert.match(res.text, /Building the dashboard\. The first start takes a minute or two/);
      const seconds = Number(/Started (\d+) s ago/.exec(res.text)?.[1]);
      assert.ok(seconds >= 42 && seconds < 600, `started ${seconds} s ago`);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', 'the usual security headers');
    }
    const head = await fetch(`${api.url}/dashboard`, { method: 'HEAD' });
    assert.equal(head.status, 503);
    assert.equal(await head.text(), '');
  });

  it('/healthz says "starting" (the process is alive), /readyz is 503 with the reason', async () => {
    const health = await api.request<{ status: string; phase: string; message: string }>('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'starting');
    assert.equal(health.body.phase, 'build');
    assert.match(health.body.message, /\/v1 already answers/);
    const ready = await api.request<{ status: string; reason: string }>('GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body.status, 'not_ready');
    assert.match(ready.body.reason, /Building the dashboard/);
  });

  it('/v1 answers as usual', async () => {
    const { key } = await api.seed.key();
    const res = await api.request<{ data: unknown[] }>('GET', '/v1/agents', { key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, []);
    assert.equal((await api.request('GET', '/v1/agents')).status, 401);
  });

  it("the dashboard's /api/* answers 503 `starting` in the envelope, with Retry-After", async () => {
    const res = await api.request<{ error: { type: string; code: string; message: string; requestId: string } }>(
      'POST',
      '/api/trpc/keys.list?batch=1',
      { body: {} },
    );
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '3');
    assert.equal(res.body.error.code, 'starting');
    assert.equal(res.body.error.type, 'api_error');
    assert.match(res.body.error.message, /still starting/);
    assert.equal(res.headers.get('x-request-id'), res.body.error.requestId);
    const asset = await api.request('GET', '/_next/static/chunks/main.js');
    assert.equal(asset.status, 503);
    assert.equal((asset.body as { error: { code: string } }).error.code, 'starting');
  });

  it('once Next is ready it serves every page, and /healthz and /readyz say so', async () => {
    dashboard.handler = (_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<h1>dashboard</h1>');
    };
    dashboard.starting = undefined;
    const page = await api.request('GET', '/dashboard/keys');
    assert.equal(page.status, 200);
    assert.equal(page.text, '<h1>dashboard</h1>');
    assert.deepEqual((await api.request('GET', '/healthz')).body, { status: 'ok' });
    const ready = await api.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });
});
