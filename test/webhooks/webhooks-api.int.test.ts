import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus, ISO_MS } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { createWebhook, deliveries, eventually } from './helpers';

// /v1/webhooks as a client sees it (docs/webhooks.md, "The contract"; docs/api.md): create (secret
// once), list, read, update, delete, rotate; validation errors in the envelope with `param`,
// nothing written on a refusal; the per-environment limit holds under concurrent creates; and the
// security suite on each route.
// Private URLs are allowed here (test config); the SSRF guard has its own file.

let api: TestServer;
before(async () => {
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
after(() => api?.close());

const URL_OK = 'http://127.0.0.1:9/hook';
const owner = (): Promise<SeededKey> => api.seed.key({ ...UNLIMITED });

async function count(workspaceId: string): Promise<number> {
  const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from webhooks where workspace_id = ${workspaceId}`);
  return row!.n;
}

describe('create, read, update, delete', () => {
  it('creates a webhook: 201, the fields of docs/webhooks.md and the secret, which no read shows again', async () => {
    const o = await owner();
    const res = await api.request<Record<string, unknown>>('POST', '/v1/webhooks', {
      key: o.key,
      body: { url: URL_OK, events: ['execution.succeeded', 'execution.failed'], description: 'Orders' },
    });
    expectStatus(res, 201);
    const { secret, ...view } = res.body;
    assert.match(String(secret), /^whsec_/);
    assert.deepEqual(Object.keys(view).sort(), ['createdAt', 'description', 'disabledReason', 'enabled', 'environment', 'events', 'id', 'updatedAt', 'url']);
    assert.match(String(view.id), /^whk_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(view.enabled, true);
    assert.equal(view.environment, 'test');
    assert.match(String(view.createdAt), ISO_MS);
    const got = await api.request('GET', `/v1/webhooks/${String(view.id)}`, { key: o.key });
    expectStatus(got, 200);
    assert.deepEqual(got.body, view);
    const list = await api.request<{ data: unknown[] }>('GET', '/v1/webhooks', { key: o.key });
    assert.deepEqual(list.body.data, [view]);
    assert.ok(!list.text.includes(String(secret)) && !got.text.includes(String(secret)));
  });

  it('updates only the fields given; enabled false/true sets and clears disabledReason', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: URL_OK, events: ['agent.created'], description: 'keep' });
    const res = await api.request<Record<string, unknown>>('PATCH', `/v1/webhooks/${hook.id}`, { key: o.key, body: { events: ['*'], enabled: false } });
    expectStatus(res, 200);
    assert.deepEqual(res.body.events, ['*']);
    assert.equal(res.body.description, 'keep');
    assert.equal(res.body.enabled, false);
    assert.equal(res.body.disabledReason, 'manual');
    const back = await api.request<Record<string, unknown>>('PATCH', `/v1/webhooks/${hook.id}`, { key: o.key, body: { enabled: true, description: null } });
    assert.equal(back.body.enabled, true);
    assert.equal(back.body.disabledReason, null);
    assert.equal(back.body.description, null);
  });

  it('deletes: 200 {id, deleted}, then 404', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: URL_OK });
    const res = await api.request('DELETE', `/v1/webhooks/${hook.id}`, { key: o.key });
    expectStatus(res, 200);
    assert.deepEqual(res.body, { id: hook.id, deleted: true });
    expectError(await api.request('GET', `/v1/webhooks/${hook.id}`, { key: o.key }), 404, 'resource_not_found', 'id');
    expectError(await api.request('DELETE', `/v1/webhooks/${hook.id}`, { key: o.key }), 404, 'resource_not_found', 'id');
  });

  it('rotates the secret: a new one, shown once', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: URL_OK });
    const a = await api.request<{ secret: string }>('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: o.key });
    const b = await api.request<{ secret: string }>('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: o.key });
    expectStatus(a, 200);
    assert.equal(new Set([hook.secret, a.body.secret, b.body.secret]).size, 3);
  });
});

describe('a key without webhooks:manage', () => {
  it('is told how to get one: the default scopes leave it out', async () => {
    const o = await owner();
    const defaults = await api.request<{ key: string; scopes: string[] }>('POST', '/v1/keys', { key: o.key, body: { name: 'default scopes' } });
    expectStatus(defaults, 201);
    assert.ok(!defaults.body.scopes.includes('webhooks:manage'));
    for (const [method, path] of [
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/events'],
    ] as const) {
      const res = await api.request(method, path, { key: defaults.body.key, ...(method === 'POST' ? { body: { url: URL_OK, events: ['*'] } } : {}) });
      const { message } = expectError(res, 403, 'insufficient_scope');
      assert.match(message, /lacks the 'webhooks:manage' scope/);
      assert.match(message, /dashboard/);
      assert.match(message, /npm run admin -- create-key .*--scopes \S*webhooks:manage/);
    }
    assert.equal(await count(o.workspace.id), 0);
    // Other scopes keep the plain message.
    const { message } = expectError(await api.request('GET', '/v1/keys', { key: defaults.body.key }), 403, 'insufficient_scope');
    assert.equal(message, "This API key lacks the 'keys:manage' scope required for this request");
  });
});

describe('validation (400 in the envelope, nothing written)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['no url', { events: ['*'] }, 'url'],
    ['no events', { url: URL_OK }, 'events'],
    ['empty events', { url: URL_OK, events: [] }, 'events'],
    ['an unknown event type', { url: URL_OK, events: ['agent.exploded'] }, 'events.0'],
    ['an event type in another case', { url: URL_OK, events: ['Agent.Created'] }, 'events.0'],
    ['a look-alike event type (Cyrillic а)', { url: URL_OK, events: ['\u0430gent.created'] }, 'events.0'],
    ['a repeated event type', { url: URL_OK, events: ['agent.created', 'agent.created'] }, 'events.1'],
    ['* with others', { url: URL_OK, events: ['*', 'agent.created'] }, 'events'],
    ['too many events', { url: URL_OK, events: Array.from({ length: 50 }, () => 'agent.created') }, 'events'],
    ['events not strings', { url: URL_OK, events: [1] }, 'events'],
    ['a non-URL', { url: 'not a url', events: ['*'] }, 'url'],
    ['ftp', { url: 'ftp://example.com/x', events: ['*'] }, 'url'],
    ['credentials in the URL', { url: 'http://user:pw@127.0.0.1/hook', events: ['*'] }, 'url'],
    ['a 2,049-character URL', { url: `http://127.0.0.1/${'a'.repeat(2049 - 17)}`, events: ['*'] }, 'url'],
    ['a long description', { url: URL_OK, events: ['*'], description: 'x'.repeat(501) }, 'description'],
    ['a description with a lone surrogate', { url: URL_OK, events: ['*'], description: 'a\ud800b' }, 'description'],
    ['a description with NUL', { url: URL_OK, events: ['*'], description: 'a\u0000b' }, 'description'],
    ['a URL with a line break', { url: 'http://127.0.0.1/a\nb', events: ['*'] }, 'url'],
    ['a URL with a tab in the host', { url: 'http://127.0.\t0.1/a', events: ['*'] }, 'url'],
    ['enabled as a string', { url: URL_OK, events: ['*'], enabled: 'true' }, 'enabled'],
    ['an unknown field', { url: URL_OK, events: ['*'], secret: 'whsec_mine' }, 'secret'],
  ];
  for (const [name, body, param] of cases) {
    it(`refuses ${name} (param ${param})`, async () => {
      const o = await owner();
      const res = await api.request('POST', '/v1/webhooks', { key: o.key, body });
      assert.equal(res.status, 400, res.text);
      assert.equal((res.body as { error: { param?: string } }).error.param, param, res.text);
      assert.equal(await count(o.workspace.id), 0);
    });
  }

  it('a PATCH with a bad field changes nothing', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: URL_OK, events: ['agent.created'] });
    expectError(await api.request('PATCH', `/v1/webhooks/${hook.id}`, { key: o.key, body: { description: 'new', events: ['nope'] } }), 400, 'invalid_parameter', 'events.0');
    const got = await api.request<{ description: string | null; events: string[] }>('GET', `/v1/webhooks/${hook.id}`, { key: o.key });
    assert.equal(got.body.description, null);
    assert.deepEqual(got.body.events, ['agent.created']);
  });

  it('live mode takes plain http where private URLs are allowed (development)', async () => {
    const o = await owner();
    const live = await api.seed.key({ workspace: o.workspace, environment: 'live' });
    // Private URLs allowed lifts the https rule too (dev): only a real config can turn it on.
    const res = await api.request('POST', '/v1/webhooks', { key: live.key, body: { url: URL_OK, events: ['*'] } });
    expectStatus(res, 201);
  });

  it('holds the limit of 20 webhooks per environment under 30 concurrent creates', async () => {
    const o = await owner();
    const results = await Promise.all(Array.from({ length: 30 }, () => api.request('POST', '/v1/webhooks', { key: o.key, body: { url: URL_OK, events: ['*'] } })));
    assert.equal(results.filter((r) => r.status === 201).length, 20);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'webhook_limit_reached');
    assert.equal(await count(o.workspace.id), 20);
    // Another environment of the workspace has its own 20.
    const live = await api.seed.key({ workspace: o.workspace, environment: 'live' });
    expectStatus(await api.request('POST', '/v1/webhooks', { key: live.key, body: { url: URL_OK, events: ['*'] } }), 201);
  });

  it('paginates the delivery log and refuses a bad status filter or cursor', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: URL_OK });
    const empty = await api.request<{ data: unknown[]; hasMore: boolean }>('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: o.key });
    expectStatus(empty, 200);
    assert.deepEqual(empty.body, { data: [], hasMore: false });
    expectError(await api.request('GET', `/v1/webhooks/${hook.id}/deliveries?status=lost`, { key: o.key }), 400, 'invalid_parameter', 'status');
    expectError(await api.request('GET', `/v1/webhooks/${hook.id}/deliveries?after=evt_x`, { key: o.key }), 400, 'invalid_cursor', 'after');
  });

  it('resend of an unknown delivery is 404 param deliveryId; test and resend on a disabled webhook are 409', async () => {
    const o = await owner();
    const hook = await createWebhook(api, o.key, { url: URL_OK });
    expectError(await api.request('POST', `/v1/webhooks/${hook.id}/deliveries/dlv_01JD8X43D4E5F6G7H8J9KAMBNC/resend`, { key: o.key }), 404, 'resource_not_found', 'deliveryId');
    await api.request('PATCH', `/v1/webhooks/${hook.id}`, { key: o.key, body: { enabled: false } });
    expectError(await api.request('POST', `/v1/webhooks/${hook.id}/test`, { key: o.key }), 409, 'webhook_disabled');
  });
});

async function webhookOf(o: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  return (await createWebhook(api, admin.key, { url: URL_OK, events: ['agent.created'] })).id;
}
/** A webhook of `o`'s workspace and environment and a delivery of it (of a test event). */
async function deliveryOf(o: SeededKey): Promise<{ id: string; deliveryId: string }> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  const id = await webhookOf(o);
  expectStatus(await api.request('POST', `/v1/webhooks/${id}/test`, { key: admin.key }), 202);
  // The event becomes a delivery in the relay, at once but not in the request.
  const [delivery] = await eventually(() => deliveries(api, admin.key, id), (ds) => ds.length === 1, 10_000, 'the test event’s delivery');
  return { id, deliveryId: delivery!.id };
}
const scope = 'webhooks:manage';
const listIds = (body: unknown) => (body as { data: { id: string }[] }).data.map((x) => x.id);
securitySuite(() => api, { method: 'POST', path: '/v1/webhooks', scope, successStatus: 201, body: () => ({ url: URL_OK, events: ['*'] }) });
securitySuite(() => api, { method: 'GET', path: '/v1/webhooks', scope, successStatus: 200, create: (_a, o) => webhookOf(o), listIds });
securitySuite(() => api, { method: 'GET', path: '/v1/webhooks/{id}', scope, successStatus: 200, create: (_a, o) => webhookOf(o) });
securitySuite(() => api, { method: 'PATCH', path: '/v1/webhooks/{id}', scope, successStatus: 200, body: () => ({ description: 'x' }), create: (_a, o) => webhookOf(o) });
securitySuite(() => api, { method: 'DELETE', path: '/v1/webhooks/{id}', scope, successStatus: 200, create: (_a, o) => webhookOf(o) });
securitySuite(() => api, { method: 'POST', path: '/v1/webhooks/{id}/rotate-secret', scope, successStatus: 200, create: (_a, o) => webhookOf(o) });
securitySuite(() => api, { method: 'GET', path: '/v1/webhooks/{id}/deliveries', scope, successStatus: 200, create: (_a, o) => webhookOf(o) });
securitySuite(() => api, { method: 'POST', path: '/v1/webhooks/{id}/test', scope, successStatus: 202, create: (_a, o) => webhookOf(o) });
securitySuite(() => api, { method: 'POST', path: '/v1/webhooks/{id}/deliveries/{deliveryId}/resend', scope, successStatus: 202, create: (_a, o) => deliveryOf(o) });
