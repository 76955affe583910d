import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { until } from '../eventually';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute } from '../executions/helpers';
import type { RuleView } from '../../server/modules/evals/rules';
import { securitySuite } from '../security';

// Online scoring (docs/evals.md, "Online scoring"): a rule scores a sample of an agent's ended
// runs after they end; the scores are on the execution and its trace; `eval.score_dropped` fires
// once per drop (hysteresis); the judges' own runs are never sampled; bad input; who may call.

let api: TestServer;
let owner: SeededKey;

before(async () => {
  api = await startServer();
  owner = await api.seed.key({ ...UNLIMITED, environment: 'test' });
});
after(async () => {
  await api?.close();
});

type Scores = Record<string, { score: number | null; pass: boolean | null; reason: string }> | null;
const rule = (agentId: string, body: Record<string, unknown>, key = owner.key) => api.request<RuleView>('POST', `/v1/agents/${agentId}/eval-rules`, { key, body });
const run = async (agentId: string, input: string, key = owner.key) => {
  const res = await execute(api, key, agentId, { input, wait: true });
  expectStatus(res, 200);
  return res.body.id;
};
const scoresOf = async (id: string, key = owner.key) => (await api.request<{ scores: Scores }>('GET', `/v1/executions/${id}`, { key })).body.scores;
const scored = (id: string, key = owner.key) => until(`execution ${id} scored`, async () => (await scoresOf(id, key)) !== null, { timeoutMs: 15_000, everyMs: 25 }).then(() => scoresOf(id, key));

describe('online scoring', () => {
  it('scores every run at sampleRate 1 after it ends: on the execution and its trace, judges included', async () => {
    const agentId = await createAgent(api, owner.key, { model: 'sandbox/echo' });
    const made = await rule(agentId, {
      scorers: [{ type: 'contains', value: 'Echo' }, { type: 'exact_match' }, { type: 'llm_judge', model: 'openai/gpt-4o-mini', rubric: 'Is it polite?', name: 'polite' }],
      sampleRate: 1,
    });
    expectStatus(made, 201);
    assert.match(made.body.id, /^evr_/);
    assert.equal(made.body.movingMean, null);
    const id = await run(agentId, 'hello there');
    const scores = (await scored(id))!;
    assert.deepEqual(scores.contains, { score: 1, pass: true, reason: scores.contains!.reason });
    assert.equal(scores.exact_match!.score, null, 'no expected answer: not scored');
    assert.equal(scores.polite!.score, 1, 'test mode’s judge is the sandbox');
    const trace = await api.request<{ scores: Scores }>('GET', `/v1/executions/${id}/trace`, { key: owner.key });
    assert.deepEqual(trace.body.scores, scores);
    // The judge's run is an execution of the workspace's judge agent, and is never sampled itself.
    const judges = await api.query<{ id: string }>(sql`select id from executions where trigger ->> 'type' = 'judge' and trigger ->> 'executionId' = ${id}`);
    assert.equal(judges.length, 1);
    const [sampled] = await api.query<{ n: number }>(sql`select count(*)::int as n from online_scores where execution_id = ${judges[0]!.id}`);
    assert.equal(sampled!.n, 0);
  });

  it('samples about sampleRate of the runs, none at 0', async () => {
    const agentId = await createAgent(api, owner.key, { model: 'sandbox/echo' });
    const none = await rule(agentId, { scorers: [{ type: 'contains', value: 'Echo' }], sampleRate: 0 });
    for (let i = 0; i < 5; i++) await run(agentId, `q${i}`);
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from online_scores where rule_id = ${none.body.id}`);
    assert.equal(row!.n, 0);
  });

  it('sends eval.score_dropped once per drop: not again while below, again after it recovered', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const agentId = await createAgent(api, me.key, { model: 'sandbox/echo' });
    const made = await rule(agentId, { scorers: [{ type: 'regex', pattern: '^Echo: good', name: 'good' }], sampleRate: 1, alertBelow: { scorer: 'GOOD', mean: 0.5, window: 2 } }, me.key);
    expectStatus(made, 201);
    assert.deepEqual(made.body.alertBelow, { scorer: 'good', mean: 0.5, window: 2 });
    const drops = async () => (await api.request<{ data: { data: { object: { movingMean: number } } }[] }>('GET', '/v1/events?type=eval.score_dropped', { key: me.key })).body.data.length;
    const go = async (input: string) => scored(await run(agentId, input, me.key), me.key);
    await go('bad one');
    assert.equal(await drops(), 0, 'no alert before the window is full');
    await go('bad two');
    await until('the drop alerted', async () => (await drops()) === 1, { timeoutMs: 5_000, everyMs: 25 });
    await go('bad three');
    await go('bad four');
    assert.equal(await drops(), 1, 'still below: no second alert');
    const rules = await api.request<{ data: RuleView[] }>('GET', `/v1/agents/${agentId}/eval-rules`, { key: me.key });
    assert.equal(rules.body.data[0]!.alerting, true);
    assert.equal(rules.body.data[0]!.movingMean, 0);
    await go('good one');
    await go('good two');
    const recovered = await api.request<{ data: RuleView[] }>('GET', `/v1/agents/${agentId}/eval-rules`, { key: me.key });
    assert.equal(recovered.body.data[0]!.alerting, false);
    await go('bad five');
    await go('bad six');
    await until('the second drop alerted', async () => (await drops()) === 2, { timeoutMs: 5_000, everyMs: 25 });
  });

  it('keeps a rule’s history 30 days (maintenance), the scores staying on the executions', async () => {
    const agentId = await createAgent(api, owner.key, { model: 'sandbox/echo' });
    const made = (await rule(agentId, { scorers: [{ type: 'contains', value: 'Echo' }], sampleRate: 1 })).body;
    const id = await run(agentId, 'old news');
    await scored(id);
    await api.query(sql`update online_scores set scored_at = now() - interval '31 days' where rule_id = ${made.id}`);
    const { runMaintenance } = await import('../../server/processes/maintenance');
    const { onlineScoresDeleted } = await runMaintenance(api.db);
    assert.ok(onlineScoresDeleted >= 1);
    const [left] = await api.query<{ n: number }>(sql`select count(*)::int as n from online_scores where rule_id = ${made.id}`);
    assert.equal(left!.n, 0);
    assert.notEqual(await scoresOf(id), null);
  });

  it('changes and deletes a rule; refuses bad input with a clear error and writes nothing', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'test' });
    const agentId = await createAgent(api, me.key, { model: 'sandbox/echo' });
    const made = (await rule(agentId, { scorers: [{ type: 'exact_match' }], sampleRate: 0.5 }, me.key)).body;
    const changed = await api.request<RuleView>('PATCH', `/v1/agents/${agentId}/eval-rules/${made.id}`, { key: me.key, body: { sampleRate: 0.25, alertBelow: { scorer: 'exact_match', mean: 0.9 } } });
    expectStatus(changed, 200);
    assert.equal(changed.body.sampleRate, 0.25);
    assert.deepEqual(changed.body.alertBelow, { scorer: 'exact_match', mean: 0.9, window: 20 });
    expectError(await rule(agentId, { scorers: [{ type: 'exact_match' }], sampleRate: 1.5 }, me.key), 400, 'invalid_parameter');
    expectError(await rule(agentId, { scorers: [{ type: 'exact_match' }], sampleRate: 1, alertBelow: { scorer: 'nope', mean: 0.5 } }, me.key), 400, 'invalid_parameter');
    expectError(await rule(agentId, { scorers: [{ type: 'regex', pattern: '(?<=a)b' }], sampleRate: 1 }, me.key), 400, 'invalid_parameter');
    const theirs = await createAgent(api, owner.key, { model: 'sandbox/echo' });
    expectError(await rule(theirs, { scorers: [{ type: 'exact_match' }], sampleRate: 1 }, me.key), 404, 'resource_not_found');
    for (let i = 0; i < 9; i++) expectStatus(await rule(agentId, { scorers: [{ type: 'exact_match' }], sampleRate: 0 }, me.key), 201);
    expectError(await rule(agentId, { scorers: [{ type: 'exact_match' }], sampleRate: 0 }, me.key), 400, 'invalid_parameter');
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from eval_rules where agent_id = ${agentId}`);
    assert.equal(row!.n, 10);
    expectStatus(await api.request('DELETE', `/v1/agents/${agentId}/eval-rules/${made.id}`, { key: me.key }), 200);
    expectError(await api.request('DELETE', `/v1/agents/${agentId}/eval-rules/${made.id}`, { key: me.key }), 404, 'resource_not_found');
  });
});

// ---- who may call each route ----

async function madeRule(o: SeededKey): Promise<Record<string, string>> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  const id = await createAgent(api, admin.key, { model: 'sandbox/echo' });
  const res = await rule(id, { scorers: [{ type: 'exact_match' }], sampleRate: 0 }, admin.key);
  expectStatus(res, 201);
  return { id, ruleId: res.body.id };
}
async function madeAgent(o: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: o.workspace, environment: o.environment });
  return createAgent(api, admin.key, { model: 'sandbox/echo' });
}

securitySuite(() => api, { method: 'POST', path: '/v1/agents/{id}/eval-rules', scope: 'evals:manage', successStatus: 201, body: () => ({ scorers: [{ type: 'exact_match' }], sampleRate: 0 }), create: (_a, o) => madeAgent(o) });
securitySuite(() => api, { method: 'GET', path: '/v1/agents/{id}/eval-rules', scope: 'evals:manage', alsoScope: 'agents:read', successStatus: 200, create: (_a, o) => madeAgent(o) });
securitySuite(() => api, { method: 'PATCH', path: '/v1/agents/{id}/eval-rules/{ruleId}', scope: 'evals:manage', successStatus: 200, body: () => ({ sampleRate: 0.5 }), create: (_a, o) => madeRule(o) });
securitySuite(() => api, { method: 'DELETE', path: '/v1/agents/{id}/eval-rules/{ruleId}', scope: 'evals:manage', successStatus: 200, create: (_a, o) => madeRule(o) });
