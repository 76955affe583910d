import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
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
let followSignal: (id: string) => SQL;
let cancelSignal: (id: string) => SQL;
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
  (await api.query<{ n: number }>(sql`select coalesce(sum(coalesce(last_seq - seq + 1, 1)), 0)::int as n from execution_events where execution_id = ${id} and type = 'text.delta'`))[0]!.n;

/**
 * A run queued behind the one slot, a long run in it: `signal` (another process's request for the
 * queued run) goes out, then the slot frees and the queued run is claimed; `then` checks it.
 */
async function signalledWhileQueued(input: string, signal: (id: string) => SQL, then: (key: string, id: string) => Promise<void>): Promise<void> {
  const { key } = await api.seed.key(UNLIMITED);
  const agentId = await createAgent(api, key, { model: 'openai-compatible/fake-1', timeoutSeconds: 60 });
  fake.set({ chunkDelayMs: 100 });
  try {
    const first = await execute(api, key, agentId, { input: LONG });
    expectStatus(first, 202);
    await waitFor(api, key, first.body.id, (e) => e.status === 'running');
    const second = await execute(api, key, agentId, { input });
    expectStatus(second, 202);
    assert.equal(second.body.status, 'queued');

    // Sent before any worker holds it.
    await api.db.execute(signal(second.body.id));
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await api.request('POST', `/v1/executions/${first.body.id}/cancel`, { key }), 200);

    await waitFor(api, key, second.body.id, (e) => e.status === 'running');
    await then(key, second.body.id);
  } finally {
    fake.set({ chunkDelayMs: 0 });
  }
}

it('a follow request that came while the run was queued: its events are written promptly from its start', async () => {
  await signalledWhileQueued(LONG, followSignal, async (key, id) => {
    const running = Date.now();
    // Promptly: its first deltas are in the database well within the lazy interval (2 s).
    await eventually('deltas written', () => deltasWritten(id), (n) => n > 0, { timeoutMs: 1_200, everyMs: 25 });
    assert.ok(Date.now() - running < 1_200);
    assert.equal((await waitFor(api, key, id)).status, 'succeeded');
  });
});

it('a cancel signalled before the worker held the run: the run stops as soon as it is set up, its model never called', async () => {
  const marker = `never-called-${Date.now()}`;
  // The signal alone, as if its cancel had committed just after a claim elsewhere.
  await signalledWhileQueued(marker, cancelSignal, async (key, id) => {
    await eventually('the worker let the run go', () => api.runtime.executions?.holds(id) ?? false, (held) => !held, { timeoutMs: 2_000, everyMs: 25 });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fake.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length, 0, 'its model was never called');
    // (Its row is left running by the signal alone: a real cancel had written it; this one does now.)
    expectStatus(await api.request('POST', `/v1/executions/${id}/cancel`, { key }), 200);
  });
});
