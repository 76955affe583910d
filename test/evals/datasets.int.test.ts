import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute } from '../executions/helpers';
import type { DatasetItemView, DatasetView } from '../../server/modules/evals/datasets';
import { securitySuite } from '../security';

// /v1/datasets (docs/evals.md, "Datasets"): datasets and their items, by hand and from an
// execution, keyset lists, the 10,000 items, bad input, and who may call each route.

let api: TestServer;
let owner: SeededKey;

before(async () => {
  api = await startServer();
  owner = await api.seed.key({ ...UNLIMITED, environment: 'test' });
});
after(async () => {
  await api?.close();
});

const makeDataset = async (key = owner.key, body: Record<string, unknown> = { name: 'Orders' }) => {
  const res = await api.request<DatasetView>('POST', '/v1/datasets', { key, body });
  expectStatus(res, 201);
  return res.body;
};
const addItem = (datasetId: string, body: Record<string, unknown>, key = owner.key) => api.request<DatasetItemView>('POST', `/v1/datasets/${datasetId}/items`, { key, body });

describe('datasets', () => {
  it('creates, reads, renames and deletes a dataset; items by hand keep a text or an object `expected`', async () => {
    const d = await makeDataset(owner.key, { name: ' Orders ', description: 'order questions' });
    assert.match(d.id, /^dst_[0-9A-Z]{26}$/);
    assert.equal(d.name, 'Orders');
    assert.equal(d.itemCount, 0);
    assert.equal(d.environment, 'test');
    const text = await addItem(d.id, { input: 'Where is 1042?', expected: 'Shipped', metadata: { topic: 'shipping' } });
    expectStatus(text, 201);
    assert.match(text.body.id, /^dsi_/);
    assert.equal(text.body.expected, 'Shipped');
    const obj = await addItem(d.id, { input: 'Refund 7?', expected: { refund: true, amount: 12.5 } });
    expectStatus(obj, 201);
    assert.deepEqual(obj.body.expected, { refund: true, amount: 12.5 });
    const none = await addItem(d.id, { input: 'Hello' });
    assert.equal(none.body.expected, null);
    const got = await api.request<DatasetView>('GET', `/v1/datasets/${d.id}`, { key: owner.key });
    assert.equal(got.body.itemCount, 3);
    const renamed = await api.request<DatasetView>('PATCH', `/v1/datasets/${d.id}`, { key: owner.key, body: { name: 'Order Qs', description: null } });
    expectStatus(renamed, 200);
    assert.equal(renamed.body.name, 'Order Qs');
    assert.equal(renamed.body.description, null);
    const changed = await api.request<DatasetItemView>('PATCH', `/v1/datasets/${d.id}/items/${text.body.id}`, { key: owner.key, body: { expected: null, input: 'Where is order 1042?' } });
    expectStatus(changed, 200);
    assert.equal(changed.body.expected, null);
    assert.equal(changed.body.input, 'Where is order 1042?');
    expectStatus(await api.request('DELETE', `/v1/datasets/${d.id}/items/${obj.body.id}`, { key: owner.key }), 200);
    expectError(await api.request('GET', `/v1/datasets/${d.id}/items/${obj.body.id}`, { key: owner.key }), 404, 'resource_not_found');
    assert.equal((await api.request<DatasetView>('GET', `/v1/datasets/${d.id}`, { key: owner.key })).body.itemCount, 2);
    expectStatus(await api.request('DELETE', `/v1/datasets/${d.id}`, { key: owner.key }), 200);
    expectError(await api.request('GET', `/v1/datasets/${d.id}/items`, { key: owner.key }), 404, 'resource_not_found');
  });

  it('makes an item from an ended execution: its input, and its output as `expected` unless given', async () => {
    const agentId = await createAgent(api, owner.key, { model: 'sandbox/echo' });
    const run = await execute(api, owner.key, agentId, { input: 'echo me', wait: true });
    expectStatus(run, 200);
    const d = await makeDataset();
    const item = await addItem(d.id, { fromExecution: run.body.id });
    expectStatus(item, 201);
    assert.equal(item.body.input, 'echo me');
    assert.equal(item.body.expected, run.body.output);
    assert.equal(item.body.sourceExecutionId, run.body.id);
    const given = await addItem(d.id, { fromExecution: run.body.id, expected: { better: 'answer' } });
    assert.deepEqual(given.body.expected, { better: 'answer' });
    // Another workspace's execution is not found; a running one is refused.
    const stranger = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const theirs = await execute(api, stranger.key, await createAgent(api, stranger.key, { model: 'sandbox/echo' }), { input: 'x', wait: true });
    expectError(await addItem(d.id, { fromExecution: theirs.body.id }), 404, 'resource_not_found');
    const slow = await execute(api, owner.key, await createAgent(api, owner.key, { model: 'sandbox/slow' }), { input: 'a b c d e f g h i j k l' });
    expectError(await addItem(d.id, { fromExecution: slow.body.id }), 409, 'execution_not_final');
    await api.request('POST', `/v1/executions/${slow.body.id}/cancel`, { key: owner.key });
  });

  it('lists datasets and items by keyset, newest first', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const d = await makeDataset(me.key);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await addItem(d.id, { input: `q${i}` }, me.key)).body.id);
    const first = await api.request<{ data: DatasetItemView[]; hasMore: boolean; nextCursor?: string }>('GET', `/v1/datasets/${d.id}/items?limit=3`, { key: me.key });
    expectStatus(first, 200);
    assert.deepEqual(first.body.data.map((i) => i.id), ids.slice(2).reverse());
    assert.equal(first.body.hasMore, true);
    const second = await api.request<{ data: DatasetItemView[]; hasMore: boolean }>('GET', `/v1/datasets/${d.id}/items?limit=3&after=${first.body.nextCursor}`, { key: me.key });
    assert.deepEqual(second.body.data.map((i) => i.id), ids.slice(0, 2).reverse());
    assert.equal(second.body.hasMore, false);
    const lists = await api.request<{ data: DatasetView[] }>('GET', '/v1/datasets', { key: me.key });
    assert.deepEqual(lists.body.data.map((x) => x.id), [d.id]);
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const d = await makeDataset();
    expectError(await api.request('POST', '/v1/datasets', { key: owner.key, body: { name: '' } }), 400, 'invalid_parameter');
    expectError(await addItem(d.id, { input: '' }), 400, 'invalid_parameter');
    expectError(await addItem(d.id, { input: 'x', fromExecution: 'exe_x' }), 400, 'invalid_parameter');
    expectError(await addItem(d.id, { input: 'x', expected: 42 }), 400, 'invalid_parameter');
    const proto = await api.request('POST', `/v1/datasets/${d.id}/items`, { key: owner.key, rawBody: '{"input":"x","expected":{"a":{"__proto__":{"polluted":true}}}}', headers: { 'content-type': 'application/json' } });
    expectError(proto, 400, 'invalid_parameter');
    let deep: unknown = 'leaf';
    for (let i = 0; i < 40; i++) deep = { n: deep };
    expectError(await addItem(d.id, { input: 'x', expected: deep }), 400, 'invalid_json');
    expectError(await addItem(d.id, { input: 'x', expected: { big: 'y'.repeat(70_000) } }), 400, 'invalid_parameter');
    expectError(await addItem(d.id, { input: 'x', metadata: { ['k'.repeat(41)]: 'v' } }), 400, 'invalid_parameter');
    expectError(await addItem('dst_nope', { input: 'x' }), 404, 'resource_not_found');
    assert.equal((await api.request<DatasetView>('GET', `/v1/datasets/${d.id}`, { key: owner.key })).body.itemCount, 0, 'nothing was written');
  });

  it('holds at most 10,000 items, even when adds race for the last places', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const d = await makeDataset(me.key);
    // Fill it to 9,998 directly (the API would take minutes), then race 5 adds for the last 2 places.
    await api.query(
      sql`insert into dataset_items (id, dataset_id, workspace_id, environment, input)
          select 'dsi_' || lpad(g::text, 26, '0'), ${d.id}, ${me.workspace.id}, 'test', 'q' || g from generate_series(1, 9998) g`,
    );
    await api.query(sql`update datasets set item_count = 9998 where id = ${d.id}`);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => addItem(d.id, { input: `last ${i}` }, me.key)));
    assert.equal(results.filter((r) => r.status === 201).length, 2);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'dataset_full');
    const [count] = await api.query<{ n: number }>(sql`select count(*)::int as n from dataset_items where dataset_id = ${d.id}`);
    assert.equal(count!.n, 10_000);
  });
});

// ---- who may call each route ----

async function madeDataset(o: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  return (await makeDataset(admin.key)).id;
}
async function madeItem(o: SeededKey): Promise<Record<string, string>> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  const id = (await makeDataset(admin.key)).id;
  const item = await addItem(id, { input: 'q', expected: 'a' }, admin.key);
  expectStatus(item, 201);
  return { id, itemId: item.body.id };
}
const listIds = (body: unknown) => (body as { data: { id: string }[] }).data.map((s) => s.id);
const READ = { scope: 'evals:manage', alsoScope: 'agents:read' } as const;

securitySuite(() => api, { method: 'POST', path: '/v1/datasets', scope: 'evals:manage', successStatus: 201, body: () => ({ name: 'd' }) });
securitySuite(() => api, { method: 'GET', path: '/v1/datasets', ...READ, successStatus: 200, create: (_a, o) => madeDataset(o), listIds });
securitySuite(() => api, { method: 'GET', path: '/v1/datasets/{id}', ...READ, successStatus: 200, create: (_a, o) => madeDataset(o) });
securitySuite(() => api, { method: 'PATCH', path: '/v1/datasets/{id}', scope: 'evals:manage', successStatus: 200, body: () => ({ name: 'e' }), create: (_a, o) => madeDataset(o) });
securitySuite(() => api, { method: 'DELETE', path: '/v1/datasets/{id}', scope: 'evals:manage', successStatus: 200, create: (_a, o) => madeDataset(o) });
securitySuite(() => api, { method: 'POST', path: '/v1/datasets/{id}/items', scope: 'evals:manage', successStatus: 201, body: () => ({ input: 'q' }), create: (_a, o) => madeDataset(o) });
securitySuite(() => api, { method: 'GET', path: '/v1/datasets/{id}/items', ...READ, successStatus: 200, create: (_a, o) => madeItem(o), listIds });
securitySuite(() => api, { method: 'GET', path: '/v1/datasets/{id}/items/{itemId}', ...READ, successStatus: 200, create: (_a, o) => madeItem(o) });
securitySuite(() => api, { method: 'PATCH', path: '/v1/datasets/{id}/items/{itemId}', scope: 'evals:manage', successStatus: 200, body: () => ({ expected: 'b' }), create: (_a, o) => madeItem(o) });
securitySuite(() => api, { method: 'DELETE', path: '/v1/datasets/{id}/items/{itemId}', scope: 'evals:manage', successStatus: 200, create: (_a, o) => madeItem(o) });
