import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute } from '../executions/helpers';
import type { BudgetView } from '../../server/modules/budgets/service';
import { securitySuite } from '../security';

// /v1/budgets (docs/api.md, "Budgets"): create, list, read, change, delete, what each refuses,
// and who may call them. Enforcement and alerts: budgets-enforcement.int.test.ts.

let api: TestServer;
let fake: FakeOpenAI;
let owner: SeededKey;
let stranger: SeededKey;
let agentId: string;

const PRICED = 'openai-compatible/fake-1';

before(async () => {
  fake = await startFakeOpenAI();
  api = await startServer({ env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, MODEL_PRICES: JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } }) } });
  owner = await api.seed.key({ ...UNLIMITED, environment: 'live' });
  stranger = await api.seed.key({ ...UNLIMITED, environment: 'live' });
  agentId = await createAgent(api, owner.key, { model: PRICED });
});
after(async () => {
  await api?.close();
  await fake?.close();
});

const create = (body: Record<string, unknown>, key = owner.key) => api.request<BudgetView>('POST', '/v1/budgets', { key, body: { name: 'Cap', action: 'block', period: 'month', ...body } });

describe('POST /v1/budgets', () => {
  it('creates a workspace budget in USD: 201 with its period, spend and status', async () => {
    const res = await create({ target: { type: 'workspace' }, limit: { usd: '25' }, timezone: 'Europe/Berlin', metadata: { team: 'ops' } });
    expectStatus(res, 201);
    const b = res.body;
    assert.match(b.id, /^bdg_[0-9A-Z]{26}$/);
    assert.deepEqual(b.target, { type: 'workspace' });
    assert.deepEqual(b.limit, { usd: '25.00' });
    assert.deepEqual(b.alertAt, [80, 100]);
    assert.deepEqual(b.spent, { usd: '0.00', tokens: 0, unpricedCalls: 0 });
    assert.equal(b.status, 'ok');
    assert.equal(b.environment, 'live');
    assert.deepEqual(b.metadata, { team: 'ops' });
    // The month starts at local midnight on the 1st in Berlin (UTC+1 or +2).
    const start = new Date(b.periodStart);
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).format(start);
    assert.match(local, /^1,? 00:00$/);
    assert.ok(new Date(b.resetsAt!).getTime() > Date.now());
    assert.ok(start.getTime() <= Date.now());
  });

  it('creates agent and key budgets in tokens, per day and in total', async () => {
    const agentBudget = await create({ target: { type: 'agent', id: agentId }, limit: { tokens: 1000 }, period: 'day', alertAt: [100, 50] });
    expectStatus(agentBudget, 201);
    assert.deepEqual(agentBudget.body.limit, { tokens: 1000 });
    assert.deepEqual(agentBudget.body.alertAt, [50, 100], 'sorted');
    const keyBudget = await create({ target: { type: 'key', id: owner.id }, limit: { tokens: 5 }, period: 'total', action: 'notify' });
    expectStatus(keyBudget, 201);
    assert.equal(keyBudget.body.periodStart, '1970-01-01T00:00:00.000Z');
    assert.equal(keyBudget.body.resetsAt, null);
  });

  it('refuses what it cannot count: bad limits, zones, periods, targets of others, revoked keys', async () => {
    const ws = { type: 'workspace' };
    for (const limit of [{ usd: '25.001' }, { usd: '0' }, { usd: '-1' }, { usd: 25 }, { usd: '1000000.01' }, { tokens: 0 }, { tokens: 1.5 }, { usd: '1', tokens: 5 }, {}]) {
      expectError(await create({ target: ws, limit }), 400, 'invalid_parameter');
    }
    expectError(await create({ target: ws, limit: { usd: '1' }, timezone: 'Mars/Olympus' }), 400, 'invalid_parameter', 'timezone');
    expectError(await create({ target: ws, limit: { usd: '1' }, period: 'year' }), 400, 'invalid_parameter', 'period');
    expectError(await create({ target: ws, limit: { usd: '1' }, action: 'warn' }), 400, 'invalid_parameter', 'action');
    expectError(await create({ target: ws, limit: { usd: '1' }, alertAt: [80, 80] }), 400, 'invalid_parameter', 'alertAt');
    expectError(await create({ target: ws, limit: { usd: '1' }, alertAt: [0] }), 400, 'invalid_parameter');
    expectError(await create({ target: { type: 'agent', id: 'agt_nope' }, limit: { usd: '1' } }), 404, 'resource_not_found', 'target.id');
    // Another workspace's agent and key are unknown here.
    expectError(await create({ target: { type: 'agent', id: agentId }, limit: { usd: '1' } }, stranger.key), 404, 'resource_not_found', 'target.id');
    expectError(await create({ target: { type: 'key', id: owner.id }, limit: { usd: '1' } }, stranger.key), 404, 'resource_not_found', 'target.id');
    const revoked = await api.seed.key({ workspace: owner.workspace, environment: 'live' });
    expectStatus(await api.request('DELETE', `/v1/keys/${revoked.id}`, { key: owner.key }), 200);
    expectError(await create({ target: { type: 'key', id: revoked.id }, limit: { usd: '1' } }), 404, 'resource_not_found', 'target.id');
    // A metadata key named like an inherited property would be dropped by the parser: refused.
    const proto = await api.request('POST', '/v1/budgets', {
      key: owner.key,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"name":"x","action":"block","period":"day","target":{"type":"workspace"},"limit":{"usd":"1"},"metadata":{"__proto__":"x"}}',
    });
    expectError(proto, 400, 'invalid_parameter', 'metadata');
  });

  it('counts the runs of the period that finished before it was created', async () => {
    const agent = await createAgent(api, owner.key, { model: PRICED });
    const ran = await execute(api, owner.key, agent, { input: 'hello there', wait: true });
    expectStatus(ran, 200);
    const tokens = ran.body.usage.totalTokens;
    const b = await create({ target: { type: 'agent', id: agent }, limit: { usd: '1' }, period: 'day' });
    expectStatus(b, 201);
    assert.equal(b.body.spent.tokens, tokens);
    const cost = (ran.body.usage.inputTokens * 2.5 + ran.body.usage.outputTokens * 10) / 1e6;
    assert.equal(Number(b.body.spent.usd), cost);
  });
});

describe('the README’s budget flow', () => {
  it('a 40-token daily cap on the workspace: a run, then one whose prompt is more than is left, then 402', async () => {
    const key = await api.seed.key({ ...UNLIMITED, environment: 'live' });
    // The workspace ran something today already: the walkthrough's cap is on its new agent.
    await execute(api, key.key, (await api.request<{ id: string }>('POST', '/v1/agents', { key: key.key, body: { name: 'Earlier' } })).body.id, { input: 'a run from before, with many tokens '.repeat(5), wait: true });
    const agent = await api.request<{ id: string; model: string }>('POST', '/v1/agents', { key: key.key, body: { name: 'Chatty' } });
    assert.equal(agent.body.model, 'sandbox/echo', 'the default model');
    const b = await create({ name: 'Daily cap', target: { type: 'agent', id: agent.body.id }, limit: { tokens: 40 }, period: 'day', timezone: 'Europe/Berlin' }, key.key);
    expectStatus(b, 201);
    const first = await execute(api, key.key, agent.body.id, { input: 'hello', wait: true });
    assert.equal(first.body.status, 'succeeded');
    const second = await execute(api, key.key, agent.body.id, { input: 'a much longer question, asked at length: its prompt alone is more than what the forty tokens leave', wait: true });
    assert.equal(second.body.status, 'failed');
    assert.equal(second.body.error?.code, 'budget_exceeded');
    assert.equal(second.body.usage.totalTokens, 0, 'it did not start: nothing spent past the cap');
    const refused = expectError(await execute(api, key.key, agent.body.id, { input: 'hello', wait: true }), 402, 'budget_exceeded');
    assert.match(refused.message, /Daily cap/);
    const listed = await api.request<{ data: BudgetView[] }>('GET', '/v1/budgets', { key: key.key });
    assert.equal(listed.body.data[0]!.status, 'exceeded');
    assert.equal(listed.body.data[0]!.spent.tokens, first.body.usage.totalTokens);
  });
});

describe('GET, PATCH, DELETE /v1/budgets', () => {
  it('lists newest first, filtered by target; reads one; 404 for another workspace', async () => {
    const a = (await create({ target: { type: 'agent', id: agentId }, limit: { tokens: 10 } })).body;
    const list = await api.request<{ data: BudgetView[]; hasMore: boolean }>('GET', `/v1/budgets?targetType=agent&targetId=${agentId}&limit=100`, { key: owner.key });
    expectStatus(list, 200);
    assert.ok(list.body.data.length >= 1);
    assert.ok(list.body.data.every((b) => b.target.type === 'agent' && 'id' in b.target && b.target.id === agentId));
    assert.equal(list.body.data[0]!.id, a.id, 'newest first');
    const got = await api.request<BudgetView>('GET', `/v1/budgets/${a.id}`, { key: owner.key });
    expectStatus(got, 200);
    assert.deepEqual(got.body, a);
    expectError(await api.request('GET', `/v1/budgets/${a.id}`, { key: stranger.key }), 404, 'resource_not_found');
    const theirs = await api.request<{ data: BudgetView[] }>('GET', '/v1/budgets', { key: stranger.key });
    assert.equal(theirs.body.data.length, 0);
  });

  it('changes the given fields only; the target cannot change', async () => {
    const b = (await create({ target: { type: 'workspace' }, limit: { usd: '5' } })).body;
    const res = await api.request<BudgetView>('PATCH', `/v1/budgets/${b.id}`, { key: owner.key, body: { limit: { tokens: 100 }, action: 'notify', name: 'Renamed' } });
    expectStatus(res, 200);
    assert.deepEqual(res.body.limit, { tokens: 100 });
    assert.equal(res.body.action, 'notify');
    assert.equal(res.body.name, 'Renamed');
    assert.equal(res.body.period, 'month');
    expectError(await api.request('PATCH', `/v1/budgets/${b.id}`, { key: owner.key, body: { target: { type: 'workspace' } } }), 400, 'unknown_parameter', 'target');
    expectError(await api.request('PATCH', `/v1/budgets/${b.id}`, { key: stranger.key, body: { name: 'x' } }), 404, 'resource_not_found');
  });

  it('deletes: then 404', async () => {
    const b = (await create({ target: { type: 'workspace' }, limit: { usd: '5' } })).body;
    expectError(await api.request('DELETE', `/v1/budgets/${b.id}`, { key: stranger.key }), 404, 'resource_not_found');
    const res = await api.request<{ id: string; deleted: boolean }>('DELETE', `/v1/budgets/${b.id}`, { key: owner.key });
    expectStatus(res, 200);
    assert.deepEqual(res.body, { id: b.id, deleted: true });
    expectError(await api.request('GET', `/v1/budgets/${b.id}`, { key: owner.key }), 404, 'resource_not_found');
  });

  it('needs budgets:manage to write; reads also take analytics:read', async () => {
    const reader = await api.seed.key({ workspace: owner.workspace, environment: 'live', scopes: ['analytics:read'] });
    const none = await api.seed.key({ workspace: owner.workspace, environment: 'live', scopes: ['agents:read'] });
    expectStatus(await api.request('GET', '/v1/budgets', { key: reader.key }), 200);
    const refused = expectError(await create({ target: { type: 'workspace' }, limit: { usd: '5' } }, reader.key), 403, 'insufficient_scope');
    assert.match(refused.message, /budgets:manage/);
    const read = expectError(await api.request('GET', '/v1/budgets', { key: none.key }), 403, 'insufficient_scope');
    assert.match(read.message, /'budgets:manage' scope \(or 'analytics:read'\)/);
  });

  it('holds at most 100 per workspace and environment, even when created at once', async () => {
    const ws = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const made = await Promise.all(
      Array.from({ length: 104 }, (_, i) => api.request('POST', '/v1/budgets', { key: ws.key, body: { name: `b${i}`, action: 'notify', period: 'day', target: { type: 'workspace' }, limit: { tokens: 10 } } })),
    );
    assert.equal(made.filter((r) => r.status === 201).length, 100);
    for (const r of made.filter((r) => r.status !== 201)) expectError(r, 409, 'budget_limit_reached');
  });
});

// ---- the security suite on every route ----

async function madeBudget(o: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  const res = await api.request<BudgetView>('POST', '/v1/budgets', { key: admin.key, body: { name: 'b', action: 'notify', period: 'day', target: { type: 'workspace' }, limit: { tokens: 10 } } });
  expectStatus(res, 201);
  return res.body.id;
}
const listIds = (body: unknown) => (body as { data: { id: string }[] }).data.map((s) => s.id);
const made = (_api: TestServer, o: SeededKey) => madeBudget(o);

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/budgets',
  scope: 'budgets:manage',
  successStatus: 201,
  body: () => ({ name: 'b', action: 'block', period: 'week', target: { type: 'workspace' }, limit: { usd: '3.50' } }),
});
securitySuite(() => api, { method: 'GET', path: '/v1/budgets', scope: 'budgets:manage', alsoScope: 'analytics:read', successStatus: 200, create: made, listIds });
securitySuite(() => api, { method: 'GET', path: '/v1/budgets/{id}', scope: 'budgets:manage', alsoScope: 'analytics:read', successStatus: 200, create: made });
securitySuite(() => api, { method: 'PATCH', path: '/v1/budgets/{id}', scope: 'budgets:manage', successStatus: 200, body: () => ({ name: 'changed' }), create: made });
securitySuite(() => api, { method: 'DELETE', path: '/v1/budgets/{id}', scope: 'budgets:manage', successStatus: 200, create: made });
