import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectStatus } from '../expect';
import { eventually } from '../eventually';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startServer, UNLIMITED, type TestServer } from '../harness';
import { createAgent, execute, waitFor } from './helpers';

// A stream in another process asks the run's process to write its events promptly (NOTIFY
// `aas_follow`, docs/executions.md "Streams") as soon as it opens, and again when the run's
// started event is signalled. Both asks can reach the worker before it has set the run up (the
// claim commits the started event first): a run claimed just after such an ask still writes
// promptly from its start, not every 2 s. A cancel (`aas_cancel`) can come in the same window:
// the run stops as soon as it is set up. Here each request comes while the run waits for a slot.

let api: TestServer;
let fake: FakeOpenAI;
let followSignal: (id: string) => ReturnType<typeof import('../../server/platform/notify').notify>;
let cancelSignal: typeof followSignal;
/** About 40 chunks 100 ms apart: a run of ~4 s, longer than the lazy interval (2 s). */
const LONG = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');

before(async () => {
  fake = await startFakeOpenAI();
  api = await startServer({ env: { EXECUTION_CONCURRENCY: '1', OPENAI_COMPATIBLE_BASE_URL: fake.url, TEST_MODE_REAL_MODELS: 'true' } });
  const { CHANNELS, notify } = await import('../../server/platform/notify');
  followSignal = (id) => notify(CHANNELS.follow, id);
  cancelSignal = (id) => notify(CHANNELS.cancel, id);
});
after(async () => {
  await api?.close();
  await fake?.close();
});

const deltasWritten = async (id: string) =>
  (await api.query<{ n: number }>(sql`select count(*)::int as n from execution_events where execution_id = ${id} and type = 'text.delta'`))[0]!.n;

it('a follow request that came while the run was queued: its events are written promptly from its start', async () => {
  const { key } = await api.seed.key(UNLIMITED);
  const agentId = await createAgent(api, key, { model: 'openai-compatible/fake-1', timeoutSeconds: 60 });
  fake.set({ chunkDelayMs: 100 });
  try {
    // The one slot taken by a long run; the next one waits for it.
    const first = await execute(api, key, agentId, { input: LONG });
    expectStatus(first, 202);
    await waitFor(api, key, first.body.id, (e) => e.status === 'running');
    const second = await execute(api, key, agentId, { input: LONG });
    expectStatus(second, 202);
    assert.equal(second.body.status, 'queued');

    // Another process's stream asks for it now, before any worker holds it.
    await api.db.execute(followSignal(second.body.id));
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await api.request('POST', `/v1/executions/${first.body.id}/cancel`, { key }), 200);

    await waitFor(api, key, second.body.id, (e) => e.status === 'running');
    const running = Date.now();
    // Promptly: its first deltas are in the database well within the lazy interval (2 s).
    await eventually('deltas written', () => deltasWritten(second.body.id), (n) => n > 0, { timeoutMs: 1_200, everyMs: 25 });
    assert.ok(Date.now() - running < 1_200);
    const done = await waitFor(api, key, second.body.id);
    assert.equal(done.status, 'succeeded');
  } finally {
    fake.set({ chunkDelayMs: 0 });
  }
});

it('a cancel signalled before the worker held the run: the run stops as soon as it is set up, its model never called', async () => {
  const { key } = await api.seed.key(UNLIMITED);
  const agentId = await createAgent(api, key, { model: 'openai-compatible/fake-1', timeoutSeconds: 60 });
  fake.set({ chunkDelayMs: 100 });
  try {
    const first = await execute(api, key, agentId, { input: LONG });
    expectStatus(first, 202);
    await waitFor(api, key, first.body.id, (e) => e.status === 'running');
    const marker = `never-called-${Date.now()}`;
    const second = await execute(api, key, agentId, { input: marker });
    expectStatus(second, 202);
    assert.equal(second.body.status, 'queued');

    // The signal alone (as if its cancel had committed just after a claim elsewhere).
    await api.db.execute(cancelSignal(second.body.id));
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await api.request('POST', `/v1/executions/${first.body.id}/cancel`, { key }), 200);

    await waitFor(api, key, second.body.id, (e) => e.status === 'running');
    await eventually('the worker let the run go', () => api.runtime.executions?.holds(second.body.id) ?? false, (held) => !held, { timeoutMs: 2_000, everyMs: 25 });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fake.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length, 0, 'its model was never called');
    // (Its row is left running by the signal alone: a real cancel had written it; this one does now.)
    expectStatus(await api.request('POST', `/v1/executions/${second.body.id}/cancel`, { key }), 200);
  } finally {
    fake.set({ chunkDelayMs: 0 });
  }
});
