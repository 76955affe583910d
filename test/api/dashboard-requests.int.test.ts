// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import { startServer, type SeededKey, type TestServer } from '../harness';

// What the dashboard's tRPC face refuses before any procedure runs (docs/security.md,
// "Dashboard accounts"): a change sent by another origin's page (a same-site page posted
// `account.signOutEverywhere` as a plain form, with the victim's cookie, and it ran), a change
// whose body is not JSON, and a query whose input nests deeper than a body may. Through the same
// handler as app/api/trpc (server/api/trpc/dashboard.ts); the stand-in's user header plays the
// session cookie, which a same-site page's request carries.

let api: TestServer;
let owner: SeededKey;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
});
after(() => api?.close());

const userHeader = (k: SeededKey) => ({ 'x-test-user': `${k.workspace.userId} ${k.workspace.id}`, 'x-environment': 'test' });

/** A fresh user with one active session (the victim). */
async function victim(): Promise<{ k: SeededKey; sessionId: string; active: () => Promise<boolean> }> {
  const { startSession, isSessionActive } = await import('../../server/modules/auth/sessions');
  const k = await api.seed.key({});
  const sessionId = await startSession(api.db, k.workspace.userId);
  return { k, sessionId, active: () => isSessionActive(api.db, sessionId, k.workspace.userId) };
}

async function post(path: string, headers: Record<string, string>, body: BodyInit) {
  const res = await fetch(`${api.url}/api/trpc/${path}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as unknown, text };
}

type TrpcError = { error: { data: { httpStatus: number; apiError: { code: string; param: string | null } | null } } };
const codeOf = (body: unknown) => (body as TrpcError).error.data.apiError?.code;

const expectStatus200 = (res: { status: number }) => assert.equal(res.status, 200);

const form = () => {
  const f = new FormData();
  f.set('anything', '1');
  return f;
};

describe('changes from another origin', () => {
  before(async () => {
    owner = await api.seed.key({});
  });

  it('a same-site page posting account.signOutEverywhere as a multipart form: 403, the sessions live on', async () => {
    const { k, active } = await victim();
    const evil = new URL(api.url);
    evil.hostname = 'evil.localhost';
    const res = await post('account.signOutEverywhere', { ...userHeader(k), origin: evil.origin, 'sec-fetch-site': 'same-site' }, form());
    assert.equal(res.status, 403, res.text);
    assert.equal(codeOf(res.body), 'cross_site_request');
    assert.equal(await active(), true, 'the victim is still signed in');
  });

  it('the same form without Origin (an old browser, a script): 415, the sessions live on', async () => {
    const { k, active } = await victim();
    const res = await post('account.signOutEverywhere', userHeader(k), form());
    assert.equal(res.status, 415, res.text);
    assert.equal(codeOf(res.body), 'unsupported_media_type');
    const octet = await post('account.signOutEverywhere', { ...userHeader(k), 'content-type': 'application/octet-stream' }, '{}');
    assert.equal(octet.status, 415, octet.text);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      assert.equal((await post('account.signOutEverywhere', { ...userHeader(k), 'content-type': type }, '{}')).status, 415, type);
    }
    assert.equal(await active(), true);
  });

  it('JSON from another origin is refused however the browser says so; nothing is written', async () => {
    const keys = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from api_keys where workspace_id = ${owner.workspace.id}`))[0]!.n;
    const before0 = await keys();
    const json = { ...userHeader(owner), 'content-type': 'application/json' };
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'chrome-extension://abc' },
      { origin: `http://${new URL(api.url).hostname}:1` },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: api.url, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      const res = await post('keys.create', { ...json, ...headers }, JSON.stringify({ name: 'csrf' }));
      assert.equal(res.status, 403, `${JSON.stringify(headers)}: ${res.text}`);
      assert.equal(codeOf(res.body), 'cross_site_request');
    }
    // A batch: every procedure of it is refused, none runs.
    const batch = await post('keys.create,keys.create?batch=1', { ...json, origin: 'https://evil.example' }, JSON.stringify({ 0: { name: 'a' }, 1: { name: 'b' } }));
    assert.equal(batch.status, 403);
    assert.deepEqual((batch.body as TrpcError[]).map((r) => r.error.data.apiError?.code), ['cross_site_request', 'cross_site_request']);
    assert.equal(await keys(), before0);
  });

  it("the dashboard's own pages still change things (Origin of this host, Sec-Fetch-Site same-origin), and scripts without either", async () => {
    const json = { ...userHeader(owner), 'content-type': 'application/json' };
    const own: Record<string, string>[] = [{ origin: api.url, 'sec-fetch-site': 'same-origin' }, { origin: api.url }, { 'sec-fetch-site': 'same-origin' }, {}];
    for (const headers of own) {
      const res = await post('keys.create', { ...json, ...headers }, JSON.stringify({ name: 'mine' }));
      assert.equal(res.status, 200, `${JSON.stringify(headers)}: ${res.text}`);
    }
    // A client-written X-Forwarded-Host names no host of ours without a trusted proxy.
    const forged = await post('keys.create', { ...json, origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' }, JSON.stringify({ name: 'x' }));
    assert.equal(forged.status, 403);
  });

  it('queries (GET) are not changes: another origin may not read them (CORS), but they are not refused here', async () => {
    const res = await fetch(`${api.url}/api/trpc/keys.list?input=${encodeURIComponent('{}')}`, { headers: { ...userHeader(owner), origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });
});

describe("a query's input", () => {
  it('nested deeper than 32 levels is 400 invalid_json on input at once, as a body is; 32 levels is read', async () => {
    // The attack's 1,500 brackets; objects as deep as fit in the 16 KiB of headers.
    for (const [open, close, n] of [['[', ']', 1_500], ['{"a":', '}', 500]] as const) {
      const deep = `${open.repeat(n)}1${close.repeat(n)}`;
      const t0 = Date.now();
      const refused = await fetch(`${api.url}/api/trpc/agents.list?input=${encodeURIComponent(deep)}`, { headers: userHeader(owner) });
      const body = (await refused.json()) as TrpcError;
      assert.equal(refused.status, 400);
      assert.equal(body.error.data.apiError?.code, 'invalid_json');
      assert.equal(body.error.data.apiError?.param, 'input');
      assert.ok(Date.now() - t0 < 5_000);
    }
    expectStatus200(await dashboardCall(api, owner.workspace, 'query', 'agents.list', { limit: 5 }));
    const at32 = `${'['.repeat(32)}${']'.repeat(32)}`;
    const res = await fetch(`${api.url}/api/trpc/agents.list?input=${encodeURIComponent(at32)}`, { headers: userHeader(owner) });
    assert.equal(((await res.json()) as TrpcError).error.data.apiError?.code, 'invalid_parameter', 'read, and refused by the schema');
    const batched = await fetch(`${api.url}/api/trpc/agents.list?batch=1&input=${encodeURIComponent(`{"0":${'['.repeat(40)}${']'.repeat(40)}}`)}`, { headers: userHeader(owner) });
    assert.equal(((await batched.json()) as TrpcError[])[0]!.error.data.apiError?.code, 'invalid_json');
  });
});
