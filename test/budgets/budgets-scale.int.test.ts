// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { DB_KIND } from '../harness';
import { callProcess, seedTenant, startScaledOut, startWorker, stop, type Proc, type ScaledOut } from '../processes';
import type { Execution } from '../executions/helpers';
import { eventually } from '../eventually';

// Budgets across processes (docs/budgets.md): 2 web + 2 workers on PostgreSQL. Runs started on
// both web processes and run by both workers race a `block` budget: the ledger counts every call
// exactly, the overshoot stays within one call per run, both web processes refuse the next run
// with 402, and `budget.exceeded` is sent once.

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';
const PRICED = 'openai-compatible/fake-1';

describe('budgets on 2 web + 2 workers', { skip }, () => {
  let scaled: ScaledOut;
  let fake: FakeOpenAI;
  let tools: ToolServer;
  let a: Proc;
  let b: Proc;
  let workers: Proc[];
  let key: string;

  const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);

  before(async () => {
    fake = await startFakeOpenAI({ latencyMs: 400 });
    tools = await startToolServer();
    scaled = await startScaledOut({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', OPENAI_COMPATIBLE_BASE_URL: fake.url, MODEL_PRICES: JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } }) });
    ({ a, b } = scaled);
    workers = [scaled.worker, await startWorker(scaled.env)];
    ({ key } = await seedTenant(scaled.database.db, { name: 'budgets', environment: 'live' }));
  });

  after(async () => {
    await Promise.all([a, b, ...(workers ?? [])].filter(Boolean).map((p) => stop(p)));
    await fake?.close();
    await tools?.close();
    await scaled?.close();
  });

  it('counts every call exactly, overshoots by at most one call per run, and refuses on both web processes', async () => {
    const tool = (name: string) => ({ type: 'http', name, description: `The ${name} tool`, url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } });
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'racer', model: PRICED, maxSteps: 10, tools: [tool('lookup'), tool('search'), tool('fetch')] });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const LIMIT = 8_000;
    const budget = await call<{ id: string }>(b, 'POST', '/v1/budgets', { name: 'race', target: { type: 'workspace' }, limit: { tokens: LIMIT }, period: 'total', action: 'block' }); // never resets: a run across midnight UTC counts in one period
    assert.equal(budget.status, 201, JSON.stringify(budget.body));
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call<Execution>(i % 2 ? a : b, 'POST', `/v1/agents/${agent.body.id}/execute`, { input: `lookup and search and fetch order ${i}` })),
    );
    // A start after the limit was reached is refused (402), as it should be; the rest run.
    for (const s of answers) assert.ok(s.status === 202 || s.status === 402, JSON.stringify(s.body));
    const started = answers.filter((s) => s.status === 202);
    assert.ok(started.length >= 10, `${started.length} runs started`);
    const done = await Promise.all(
      started.map((s) =>
        eventually(`execution ${s.body.id}`, async () => (await call<Execution>(a, 'GET', `/v1/executions/${s.body.id}`)).body, (e) => ['succeeded', 'failed', 'cancelled'].includes(e.status), {
          timeoutMs: 60_000,
          everyMs: 100,
        }),
      ),
    );
    for (const e of done) assert.ok(e.status === 'succeeded' || e.error?.code === 'budget_exceeded', JSON.stringify(e.error));
    assert.ok(done.some((e) => e.error?.code === 'budget_exceeded'), 'the budget stopped runs');
    const spent = (await call<{ spent: { tokens: number }; status: string }>(a, 'GET', `/v1/budgets/${budget.body.id}`)).body;
    assert.equal(spent.spent.tokens, done.reduce((n, e) => n + e.usage.totalTokens, 0), 'the ledger holds every call of both workers');
    assert.equal(spent.status, 'exceeded');
    const bound = done.reduce((n, e) => n + Math.max(0, ...e.steps.map((s) => s.usage.totalTokens)), 0);
    assert.ok(spent.spent.tokens - LIMIT <= bound, `overshoot ${spent.spent.tokens - LIMIT} within one call per run (${bound})`);
    for (const web of [a, b]) {
      const refused = await call<{ error: { code: string } }>(web, 'POST', `/v1/agents/${agent.body.id}/execute`, { input: 'one more' });
      assert.equal(refused.status, 402);
      assert.equal(refused.body.error.code, 'budget_exceeded');
    }
    const exceeded = async () => (await call<{ data: { type: string }[] }>(b, 'GET', '/v1/events?type=budget.exceeded')).body.data.length;
    await eventually('budget.exceeded', exceeded, (n) => n >= 1, { timeoutMs: 5_000, everyMs: 50 });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await exceeded(), 1, 'budget.exceeded once, whichever worker crossed it');
  });
});
