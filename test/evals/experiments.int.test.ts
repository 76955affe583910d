import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { until } from '../eventually';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent } from '../executions/helpers';
import type { ExperimentView } from '../../server/modules/evals/experiments';
import { securitySuite } from '../security';

// /v1/experiments (docs/evals.md, "Experiments"): a dataset run through one version of an agent
// and scored, with the judges as real executions; progress, summary, results, a baseline's
// comparison, the concurrency bound, cancel, the dataset read as it was, bad input, and who may
// call each route. Judges that answer garbage or time out: judges.int.test.ts; a worker killed
// mid-experiment: processes.int.test.ts.

let api: TestServer;
let owner: SeededKey;
let agentId: string;
let datasetId: string;

const ITEMS = [
  { input: 'alpha', expected: 'Echo: alpha' },
  { input: 'beta', expected: 'Echo: beta' },
  { input: 'gamma', expected: 'something else' },
];
const SCORERS = [
  { type: 'exact_match' },
  { type: 'contains', value: 'Echo' },
  { type: 'regex', pattern: '^Echo: [a-z]+$' },
  { type: 'max_tool_calls', max: 0 },
  { type: 'llm_judge', model: 'openai/gpt-4o-mini', rubric: 'Does it echo the input?' },
];

async function dataset(key: string, items: { input: string; expected?: unknown }[] = ITEMS): Promise<string> {
  const d = await api.request<{ id: string }>('POST', '/v1/datasets', { key, body: { name: 'Echoes' } });
  expectStatus(d, 201);
  for (const item of items) expectStatus(await api.request('POST', `/v1/datasets/${d.body.id}/items`, { key, body: item }), 201);
  return d.body.id;
}
const start = (body: Record<string, unknown>, key = owner.key) => api.request<ExperimentView>('POST', '/v1/experiments', { key, body: { agentId, datasetId, scorers: SCORERS, ...body } });
const read = (id: string, key = owner.key) => api.request<ExperimentView>('GET', `/v1/experiments/${id}`, { key });
const ended = (id: string, key = owner.key) =>
  until(`experiment ${id} ended`, async () => ['succeeded', 'failed', 'cancelled'].includes((await read(id, key)).body.status), { timeoutMs: 30_000, everyMs: 50 }).then(async () => (await read(id, key)).body);

before(async () => {
  api = await startServer();
  owner = await api.seed.key({ ...UNLIMITED, environment: 'test' });
  agentId = await createAgent(api, owner.key, { model: 'sandbox/echo' });
  datasetId = await dataset(owner.key);
});
after(async () => {
  await api?.close();
});

type Results = { data: { itemId: string; input: string; executionIds: string[]; outputs: unknown[]; scores: Record<string, { mean: number | null; pass: boolean | null; reason: string }>; change: string | null }[]; hasMore: boolean; nextCursor?: string };

describe('experiments', () => {
  let first: ExperimentView;

  it('runs every item × trial, scores each answer (judges as real executions), and summarizes', async () => {
    const res = await start({ trials: 2, concurrency: 2, name: 'echo v1' });
    expectStatus(res, 201);
    assert.match(res.body.id, /^exp_/);
    assert.equal(res.body.status, 'queued');
    assert.deepEqual(res.body.progress, { done: 0, total: 6 });
    assert.equal(res.body.agentVersion, 1);
    assert.deepEqual(res.body.scorers.map((s) => s.name), ['exact_match', 'contains', 'regex', 'max_tool_calls', 'llm_judge']);
    first = await ended(res.body.id);
    assert.equal(first.status, 'succeeded', JSON.stringify(first.error));
    assert.deepEqual(first.progress, { done: 6, total: 6 });
    const s = first.summary!;
    assert.equal(s.exact_match!.mean, 0.6667);
    assert.equal(s.exact_match!.passRate, 0.6667);
    assert.equal(s.exact_match!.scored, 3);
    assert.equal(s.contains!.mean, 1);
    assert.deepEqual(s.contains!.ci95, [1, 1]);
    assert.equal(s.regex!.mean, 1);
    assert.equal(s.max_tool_calls!.mean, 1);
    // Test mode's judge is the sandbox: it answers the schema's lowest score at or above 1.
    assert.equal(s.llm_judge!.mean, 1);
    const [lo, hi] = s.exact_match!.ci95!;
    assert.ok(lo < 0.6667 && hi === 1, `${lo} ${hi}`);
    assert.equal(first.comparison, null);

    const results = await api.request<Results>('GET', `/v1/experiments/${first.id}/results?limit=2`, { key: owner.key });
    expectStatus(results, 200);
    assert.deepEqual(results.body.data.map((r) => r.input), ['alpha', 'beta']);
    assert.equal(results.body.hasMore, true);
    const alpha = results.body.data[0]!;
    assert.equal(alpha.executionIds.length, 2);
    assert.deepEqual(alpha.outputs, ['Echo: alpha', 'Echo: alpha']);
    assert.deepEqual(alpha.scores.exact_match, { mean: 1, pass: true, reason: alpha.scores.exact_match!.reason });
    const rest = await api.request<Results>('GET', `/v1/experiments/${first.id}/results?limit=2&after=${results.body.nextCursor}`, { key: owner.key });
    assert.deepEqual(rest.body.data.map((r) => r.input), ['gamma']);
    assert.equal(rest.body.data[0]!.scores.exact_match!.pass, false);

    // The summary and the results say the same: each scorer's mean is the mean of the items' means.
    const items = [...results.body.data, ...rest.body.data];
    for (const [name, summary] of Object.entries(first.summary!)) {
      const means = items.map((r) => r.scores[name]!.mean).filter((m): m is number => m !== null);
      assert.equal(summary.mean, Math.round((means.reduce((a, b) => a + b, 0) / means.length) * 10_000) / 10_000, name);
      assert.equal(summary.scored, means.length, name);
    }
    // Each answer is an execution of the version, marked as the experiment's, with its scores.
    const run = await api.request<{ trigger: unknown; agentVersion: number; scores: Record<string, { score: number }> }>('GET', `/v1/executions/${alpha.executionIds[0]}`, { key: owner.key });
    assert.deepEqual(run.body.trigger, { type: 'experiment', experimentId: first.id });
    assert.equal(run.body.agentVersion, 1);
    assert.equal(run.body.scores.exact_match!.score, 1);
    // The judges ran as executions of the workspace's judge agent: traced and metered like any run.
    const judges = await api.query<{ n: number; agent: string }>(
      sql`select count(*)::int as n, min(a.name) as agent from executions e join agents a on a.id = e.agent_id
          where e.workspace_id = ${owner.workspace.id} and e.trigger ->> 'type' = 'judge' and e.trigger ->> 'experimentId' = ${first.id}`,
    );
    assert.equal(judges[0]!.n, 6);
    assert.equal(judges[0]!.agent, 'Eval judge · openai/gpt-4o-mini');
  });

  it('compares with a baseline: per-item change and the difference of means with its interval', async () => {
    // Version 2 answers in upper case… no: it has instructions the sandbox ignores; so change the expected answers' scorer instead.
    expectStatus(await api.request('PATCH', `/v1/agents/${agentId}`, { key: owner.key, body: { instructions: 'Be brief.' } }), 200);
    const res = await start({ version: 2, baselineExperimentId: first.id, scorers: [{ type: 'exact_match' }, { type: 'contains', value: 'alpha' }] });
    expectStatus(res, 201);
    assert.equal(res.body.agentVersion, 2);
    const done = await ended(res.body.id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(Object.keys(done.comparison!).sort(), ['contains', 'exact_match']);
    assert.equal(done.comparison!.exact_match!.diff, 0);
    assert.equal(done.comparison!.exact_match!.paired, true);
    // contains "alpha": 1 on alpha only, against 1 everywhere ("Echo"): two items regressed.
    assert.ok(done.comparison!.contains!.diff! < 0);
    const results = await api.request<Results>('GET', `/v1/experiments/${done.id}/results`, { key: owner.key });
    assert.deepEqual(results.body.data.map((r) => r.change), ['unchanged', 'regressed', 'regressed']);
  });

  it('never runs more than its concurrency at once, and reads the dataset as it was when it started', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const slow = await createAgent(api, me.key, { model: 'sandbox/slow' });
    const ds = await dataset(me.key, Array.from({ length: 8 }, (_, i) => ({ input: `q${i} a b`, expected: 'x' })));
    const res = await api.request<ExperimentView>('POST', '/v1/experiments', { key: me.key, body: { agentId: slow, datasetId: ds, scorers: [{ type: 'contains', value: 'q' }], concurrency: 3 } });
    expectStatus(res, 201);
    expectStatus(await api.request('POST', `/v1/datasets/${ds}/items`, { key: me.key, body: { input: 'added later' } }), 201);
    let most = 0;
    let done = false;
    while (!done) {
      const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where workspace_id = ${me.workspace.id} and status in ('queued', 'running')`);
      most = Math.max(most, row!.n);
      done = ['succeeded', 'failed'].includes((await read(res.body.id, me.key)).body.status);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(most <= 3, `at most 3 at once (saw ${most})`);
    const final = (await read(res.body.id, me.key)).body;
    assert.deepEqual(final.progress, { done: 8, total: 8 }, 'the item added later is not in it');
    assert.equal(final.summary!.contains!.mean, 1);
  });

  it('is cancelled: nothing more starts, the runs under way are cancelled, a second cancel is 409', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const slow = await createAgent(api, me.key, { model: 'sandbox/slow' });
    const ds = await dataset(me.key, Array.from({ length: 6 }, (_, i) => ({ input: `q${i} ${'w '.repeat(40)}` })));
    const res = await api.request<ExperimentView>('POST', '/v1/experiments', { key: me.key, body: { agentId: slow, datasetId: ds, scorers: [{ type: 'exact_match' }], concurrency: 2 } });
    await until('two runs going', async () => {
      const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where workspace_id = ${me.workspace.id} and status = 'running'`);
      return row!.n === 2;
    }, { timeoutMs: 15_000, everyMs: 20 });
    const cancelled = await api.request<ExperimentView>('POST', `/v1/experiments/${res.body.id}/cancel`, { key: me.key });
    expectStatus(cancelled, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    await until('its runs cancelled', async () => {
      const rows = await api.query<{ status: string }>(sql`select status from executions where workspace_id = ${me.workspace.id}`);
      return rows.length === 2 && rows.every((r) => r.status === 'cancelled');
    }, { timeoutMs: 10_000, everyMs: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where workspace_id = ${me.workspace.id}`);
    assert.equal(row!.n, 2, 'nothing started after the cancel');
    expectError(await api.request('POST', `/v1/experiments/${res.body.id}/cancel`, { key: me.key }), 409, 'experiment_not_cancellable');
    const events = await api.request<{ data: { type: string }[] }>('GET', '/v1/events?type=experiment.completed', { key: me.key });
    assert.equal(events.body.data.length, 0, 'a cancel is not a completion');
  });

  it('holds at most 10 experiments queued or running at once in a workspace and environment', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const slow = await createAgent(api, me.key, { model: 'sandbox/slow' });
    const ds = await dataset(me.key, [{ input: `a ${'w '.repeat(15)}` }]);
    const go = () => api.request<ExperimentView>('POST', '/v1/experiments', { key: me.key, body: { agentId: slow, datasetId: ds, scorers: [{ type: 'exact_match' }] } });
    const made = await Promise.all(Array.from({ length: 12 }, go));
    assert.equal(made.filter((r) => r.status === 201).length, 10, 'ten, even when the creates race');
    for (const r of made.filter((x) => x.status !== 201)) expectError(r, 409, 'experiment_limit_reached');
    // Cancelling one makes room for another.
    const first = made.find((r) => r.status === 201)!.body.id;
    expectStatus(await api.request('POST', `/v1/experiments/${first}/cancel`, { key: me.key }), 200);
    expectStatus(await go(), 201);
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from experiments where workspace_id = ${me.workspace.id}`);
    assert.equal(row!.n, 11);
    const active = await api.query<{ id: string }>(sql`select id from experiments where workspace_id = ${me.workspace.id} and status in ('queued', 'running')`);
    await Promise.all(active.map((e) => api.request('POST', `/v1/experiments/${e.id}/cancel`, { key: me.key })));
  });

  it('sends experiment.completed with the summary', async () => {
    const events = await api.request<{ data: { type: string; data: { object: ExperimentView } }[] }>('GET', '/v1/events?type=experiment.completed', { key: owner.key });
    expectStatus(events, 200);
    const mine = events.body.data.find((e) => e.data.object.id === first.id);
    assert.ok(mine, 'experiment.completed was sent');
    assert.equal(mine.data.object.summary!.contains!.mean, 1);
  });

  it('refuses bad input with a clear error and creates nothing', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const mine = await createAgent(api, me.key, { model: 'sandbox/echo' });
    const ds = await dataset(me.key);
    const empty = (await api.request<{ id: string }>('POST', '/v1/datasets', { key: me.key, body: { name: 'empty' } })).body.id;
    const go = (body: Record<string, unknown>) => api.request('POST', '/v1/experiments', { key: me.key, body: { agentId: mine, datasetId: ds, scorers: [{ type: 'exact_match' }], ...body } });
    expectError(await go({ agentId }), 404, 'resource_not_found');
    expectError(await go({ datasetId }), 404, 'resource_not_found');
    expectError(await go({ datasetId: empty }), 400, 'invalid_parameter');
    expectError(await go({ baselineExperimentId: first.id }), 404, 'resource_not_found');
    expectError(await go({ version: 1, label: 'production' }), 400, 'parameter_conflict');
    expectError(await go({ version: 9 }), 400, 'invalid_parameter');
    expectError(await go({ label: 'nope' }), 400, 'invalid_parameter');
    expectError(await go({ trials: 11 }), 400, 'invalid_parameter');
    expectError(await go({ concurrency: 21 }), 400, 'invalid_parameter');
    expectError(await go({ scorers: [] }), 400, 'invalid_parameter');
    expectError(await go({ scorers: [{ type: 'regex', pattern: '(a)\\1' }] }), 400, 'invalid_parameter');
    expectError(await go({ scorers: [{ type: 'regex', pattern: '(?=x)' }] }), 400, 'invalid_parameter');
    expectError(await go({ scorers: [{ type: 'exact_match' }, { type: 'exact_match' }] }), 400, 'invalid_parameter');
    expectError(await go({ scorers: [{ type: 'json_schema', schema: { type: 'object', properties: { a: { $ref: 'http://example.com/x' } } } }] }), 400, 'invalid_parameter');
    expectError(await go({ scorers: [{ type: 'json_schema', schema: { type: 'string', pattern: '(?<=a)b' } }] }), 400, 'invalid_parameter');
    const proto = await api.request('POST', '/v1/experiments', {
      key: me.key,
      rawBody: JSON.stringify({ agentId: mine, datasetId: ds, scorers: [{ type: 'tool_trajectory', expected: [{ tool: 'x', arguments: {} }] }] }).replace('"arguments":{}', '"arguments":{"__proto__":{"admin":true}}'),
      headers: { 'content-type': 'application/json' },
    });
    expectError(proto, 400, 'invalid_parameter');
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from experiments where workspace_id = ${me.workspace.id}`);
    assert.equal(row!.n, 0, 'nothing was created');
  });
});

// ---- who may call each route ----

/** An experiment of `o`'s workspace; `running`: still running for a few seconds (a slow model), for the cancel route. */
async function madeExperiment(o: SeededKey, running = false): Promise<string> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  const agent = await createAgent(api, admin.key, { model: running ? 'sandbox/slow' : 'sandbox/echo' });
  // Slow: ~4 s, less than a closing server waits for its runs (10 s).
  const ds = await dataset(admin.key, [{ input: `a ${'w '.repeat(running ? 20 : 1)}`, expected: 'x' }]);
  const res = await api.request<ExperimentView>('POST', '/v1/experiments', { key: admin.key, body: { agentId: agent, datasetId: ds, scorers: [{ type: 'exact_match' }] } });
  expectStatus(res, 201);
  return res.body.id;
}
const made = (_api: TestServer, o: SeededKey) => madeExperiment(o);
const listIds = (body: unknown) => (body as { data: { id: string }[] }).data.map((s) => s.id);
const READ = { scope: 'evals:manage', alsoScope: 'agents:read' } as const;

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/experiments',
  scope: 'evals:manage',
  successStatus: 201,
  bodyFor: async (_api, o) => {
    const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
    const agent = await createAgent(api, admin.key, { model: 'sandbox/echo' });
    return { agentId: agent, datasetId: await dataset(admin.key, [{ input: 'q' }]), scorers: [{ type: 'contains', value: 'q' }] };
  },
});
securitySuite(() => api, { method: 'GET', path: '/v1/experiments', ...READ, successStatus: 200, create: made, listIds });
securitySuite(() => api, { method: 'GET', path: '/v1/experiments/{id}', ...READ, successStatus: 200, create: made });
securitySuite(() => api, { method: 'GET', path: '/v1/experiments/{id}/results', ...READ, successStatus: 200, create: made });
securitySuite(() => api, { method: 'POST', path: '/v1/experiments/{id}/cancel', scope: 'evals:manage', successStatus: 200, create: (_api, o) => madeExperiment(o, true) });
