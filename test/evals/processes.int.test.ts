// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/rows';
import { until } from '../eventually';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { DB_KIND } from '../harness';
import { callProcess, QUICK_LOST_WORKER, seedTenant, startScaledOut, startWorker, stop, type Proc, type ScaledOut } from '../processes';
import type { ExperimentView } from '../../server/modules/evals/experiments';

// An experiment across 2 web + 1 worker processes on PostgreSQL (docs/evals.md, "Experiments"):
// made on one web process, followed on the other, driven by the worker; the worker killed
// mid-experiment (SIGKILL), a new one started: the new one takes the experiment over once the
// dead one's lease lapses, no item runs twice (each has one execution, each input reached the
// model once), the runs the dead worker held end `worker_lost` (scored null: not the agent's
// answer), and the rest finish.

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';
const ITEMS = 16;

describe('an experiment across 2 web + 1 worker processes', { skip }, () => {
  let scaled: ScaledOut;
  let fake: FakeOpenAI;
  let a: Proc;
  let b: Proc;
  let worker: Proc;
  let key: string;

  before(async () => {
    // Each answer takes ~0.6 s: the experiment is under way when the worker is killed.
    fake = await startFakeOpenAI({ latencyMs: 600 });
    scaled = await startScaledOut({ TEST_MODE_REAL_MODELS: 'true', OPENAI_COMPATIBLE_BASE_URL: fake.url, EXECUTION_HEADROOM: '1' });
    ({ a, b, worker } = scaled);
    ({ key } = await seedTenant(scaled.database.db, { name: 'evals', plan: 'enterprise' }));
  });
  after(async () => {
    await Promise.all([a, b, worker].map(stop));
    await scaled?.close();
    await fake?.close();
  });

  it('survives its worker killed mid-experiment: no item runs twice, the rest finish', async () => {
    const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'evals', model: 'openai-compatible/fake-1' });
    const dataset = await call<{ id: string }>(b, 'POST', '/v1/datasets', { name: 'items' });
    for (let i = 0; i < ITEMS; i++) assert.equal((await call(i % 2 ? a : b, 'POST', `/v1/datasets/${dataset.body.id}/items`, { input: `item-${i}`, expected: `Fake reply to: item-${i}` })).status, 201);
    const made = await call<ExperimentView>(a, 'POST', '/v1/experiments', { agentId: agent.body.id, datasetId: dataset.body.id, scorers: [{ type: 'exact_match' }], concurrency: 4 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    const read = async (proc: Proc) => (await call<ExperimentView>(proc, 'GET', `/v1/experiments/${id}`)).body;

    // Followed from the other web process while the worker drives it.
    await until('some items scored', async () => (await read(b)).progress.done >= 4, { timeoutMs: 30_000, everyMs: 50 });
    worker.child.kill('SIGKILL');
    await new Promise((r) => worker.child.once('exit', r));
    const killedAt = Date.now();
    worker = await startWorker({ ...scaled.env, ...QUICK_LOST_WORKER });
    await until('the experiment ended', async () => ['succeeded', 'failed', 'cancelled'].includes((await read(a)).status), { timeoutMs: 90_000, everyMs: 100 });
    const done = await read(b);
    assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
    assert.deepEqual(done.progress, { done: ITEMS, total: ITEMS });
    assert.ok(Date.now() - killedAt < 60_000, 'taken over within a minute');

    // No item ran twice: one execution each, each input sent to the model once.
    const runs = await queryRows<{ item_id: string; execution_id: string; status: string; error_code: string | null }>(
      scaled.database.db,
      sql`select r.item_id, r.execution_id, e.status, e.error_code from experiment_runs r join executions e on e.id = r.execution_id where r.experiment_id = ${id}`,
    );
    assert.equal(runs.length, ITEMS);
    const [count] = await queryRows<{ n: number }>(scaled.database.db, sql`select count(*)::int as n from executions where trigger ->> 'experimentId' = ${id}`);
    assert.equal(count!.n, ITEMS, 'one execution an item');
    for (let i = 0; i < ITEMS; i++) {
      const sent = fake.requests.filter((r) => JSON.stringify(r.body.messages).includes(`"item-${i}"`)).length;
      assert.ok(sent <= 1, `item-${i} reached the model ${sent} times`);
    }
    // The runs the dead worker held were lost, not retried; every other one answered and was scored.
    const lost = runs.filter((r) => r.error_code === 'worker_lost');
    assert.ok(runs.every((r) => r.status === 'succeeded' || r.error_code === 'worker_lost'), JSON.stringify(runs));
    assert.equal(done.summary!.exact_match!.scored, ITEMS - lost.length);
    assert.equal(done.summary!.exact_match!.mean, 1);
  });
});
