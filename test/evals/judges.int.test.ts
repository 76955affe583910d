import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { until } from '../eventually';
import { expectStatus } from '../expect';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openai';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute } from '../executions/helpers';
import type { ExperimentView } from '../../server/modules/evals/experiments';

// LLM judges on a live key against a fake model server (docs/evals.md, "Scorers"): a judge that
// answers well, one that answers garbage, one with a score outside 0–1 and one that times out —
// only the first scores, the others score `null` with the reason and never fail the experiment;
// every judge call is a real execution (metered, traced). And an experiment refused by a budget
// fails with `budget_exceeded`, starting nothing more.

let api: TestServer;
let fake: FakeOpenAI;
let owner: SeededKey;

const MODEL = 'openai-compatible/fake-1';
const textOf = (m: NonNullable<ChatBody['messages']>[number] | undefined) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join(''));

/** The judge's answer by its rubric (in the prompt), the agent's otherwise. */
function reply(body: ChatBody): string {
  const system = textOf(body.messages?.find((m) => m.role === 'system'));
  if (!system.includes('You are an evaluator')) return 'Order 1042 shipped.';
  // The whole conversation: a repair turn's last message is the repair request.
  const prompt = (body.messages ?? []).filter((m) => m.role === 'user').map(textOf).join('\n');
  if (prompt.includes('# Rubric\nanswer garbage')) return 'I think it is fine!!';
  if (prompt.includes('# Rubric\nanswer outside')) return JSON.stringify({ score: 7, reason: 'very good' });
  return JSON.stringify({ score: 0.8, reason: 'It answers the question.' });
}

before(async () => {
  fake = await startFakeOpenAI({ reply });
  // Judges end after 15 s: long enough for a busy machine's judges that answer (CI runs cut one at
  // 2 s, then at 6 s during a 1,000 s suite), short of the 30 s a "slow" answer of the fake takes
  // (its four chunks 10 s apart).
  api = await startServer({ env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, EVAL_JUDGE_TIMEOUT_SECONDS: '15' } });
  owner = await api.seed.key({ ...UNLIMITED, environment: 'live' });
});
after(async () => {
  await api?.close();
  await fake?.close();
});

async function dataset(key: string, n: number): Promise<string> {
  const d = await api.request<{ id: string }>('POST', '/v1/datasets', { key, body: { name: 'Orders' } });
  for (let i = 0; i < n; i++) expectStatus(await api.request('POST', `/v1/datasets/${d.body.id}/items`, { key, body: { input: `Where is order ${1040 + i}?` } }), 201);
  return d.body.id;
}
const ended = (id: string, key: string) =>
  until(`experiment ${id} ended`, async () => ['succeeded', 'failed', 'cancelled'].includes((await api.request<ExperimentView>('GET', `/v1/experiments/${id}`, { key })).body.status), { timeoutMs: 30_000, everyMs: 50 }).then(
    async () => (await api.request<ExperimentView>('GET', `/v1/experiments/${id}`, { key })).body,
  );

describe('LLM judges', () => {
  it('score only when they answer a score in 0–1; garbage, out of range and timeouts score null with the reason', async () => {
    const agentId = await createAgent(api, owner.key, { model: MODEL });
    const datasetId = await dataset(owner.key, 2);
    const judge = (name: string, rubric: string) => ({ type: 'llm_judge', name, model: MODEL, rubric });
    const res = await api.request<ExperimentView>('POST', '/v1/experiments', {
      key: owner.key,
      body: { agentId, datasetId, concurrency: 2, scorers: [judge('good', 'answer well'), judge('garbage', 'answer garbage'), judge('outside', 'answer outside'), judge('late', 'be slow about it'), { type: 'contains', value: '1042' }] },
    });
    expectStatus(res, 201);
    const done = await ended(res.body.id, owner.key);
    assert.equal(done.status, 'succeeded', 'judges that could not score never fail the experiment');
    assert.equal(done.summary!.good!.mean, 0.8);
    assert.equal(done.summary!.good!.passRate, 1);
    for (const name of ['garbage', 'outside', 'late']) {
      assert.equal(done.summary![name]!.mean, null, name);
      assert.equal(done.summary![name]!.scored, 0, name);
    }
    assert.equal(done.summary!.contains!.mean, 1);
    const results = await api.request<{ data: { scores: Record<string, { mean: number | null; pass: boolean | null; reason: string }> }[] }>('GET', `/v1/experiments/${done.id}/results`, { key: owner.key });
    const scores = results.body.data[0]!.scores;
    assert.deepEqual(scores.good, { mean: 0.8, pass: true, reason: 'It answers the question.' });
    assert.match(scores.garbage!.reason, /did not answer \(output_invalid\)/);
    assert.match(scores.outside!.reason, /outside 0–1 \(7\)/);
    assert.match(scores.late!.reason, /did not answer \(timeout\)/);
    // Every judge call was an execution of the workspace: metered and traced like any run.
    const judges = await api.query<{ id: string; input_tokens: number; status: string }>(
      sql`select id, input_tokens, status from executions where workspace_id = ${owner.workspace.id} and trigger ->> 'type' = 'judge'`,
    );
    assert.equal(judges.length, 8);
    // (A judge cut by its timeout mid-answer has no usage report from the model to count.)
    assert.ok(judges.filter((j) => j.status === 'succeeded').length >= 4, 'the good and the out-of-range judges answered');
    assert.ok(judges.filter((j) => j.status === 'succeeded').every((j) => j.input_tokens > 0), 'metered');
    const trace = await api.request<{ spans: { name: string }[] }>('GET', `/v1/executions/${judges[0]!.id}/trace`, { key: owner.key });
    assert.ok(trace.body.spans.some((s) => s.name === 'model_call'), 'traced');
    // What the judge saw: the input, the output and the trajectory.
    const prompt = fake.requests.map((r) => textOf(r.body.messages?.findLast((m) => m.role === 'user'))).find((t) => t.includes('# Rubric\nanswer well'))!;
    assert.match(prompt, /# Input\nWhere is order 104\d\?/);
    assert.match(prompt, /# Output\nOrder 1042 shipped\./);
    assert.match(prompt, /# Trajectory \(0 tool calls\)/);
  });

  it('an experiment a budget refuses fails with budget_exceeded and starts nothing more', async () => {
    const me = await api.seed.key({ ...UNLIMITED, environment: 'live' });
    const agentId = await createAgent(api, me.key, { model: MODEL });
    const datasetId = await dataset(me.key, 3);
    expectStatus(await api.request('POST', '/v1/budgets', { key: me.key, body: { name: 'Cap', target: { type: 'workspace' }, limit: { tokens: 10 }, period: 'month', action: 'block' } }), 201);
    expectStatus(await execute(api, me.key, agentId, { input: 'spend the budget', wait: true }), 200);
    const res = await api.request<ExperimentView>('POST', '/v1/experiments', { key: me.key, body: { agentId, datasetId, scorers: [{ type: 'contains', value: '1042' }] } });
    expectStatus(res, 201);
    const done = await ended(res.body.id, me.key);
    assert.equal(done.status, 'failed');
    assert.equal(done.error!.code, 'budget_exceeded');
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where workspace_id = ${me.workspace.id} and trigger ->> 'type' = 'experiment'`);
    assert.equal(row!.n, 0);
    const events = await api.request<{ data: unknown[] }>('GET', '/v1/events?type=experiment.completed', { key: me.key });
    assert.equal(events.body.data.length, 1, 'a failed experiment completes too');
  });
});
