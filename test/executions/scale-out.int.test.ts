// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startOtlpReceiver, type OtlpReceiver } from '../fakes/otlp-receiver';
import type { TraceView } from '../../server/modules/traces/schemas';
import { DB_KIND } from '../harness';
import { callProcess, QUICK_LOST_WORKER, seedTenant, startScaledOut, startWorker, stop, type Proc, type ScaledOut } from '../processes';
import { FINAL_EVENTS, readStream, type Execution } from './helpers';
import { eventually } from '../eventually';

// Two web processes (RUN_WORKERS=false) and one worker process on one PostgreSQL database, rate
// limits in Redis, the model a fake OpenAI-compatible server: they behave as one service
// (docs/api.md, "Many processes, one service" and "Executions"). Streams follow runs from any web
// process, a cancel reaches the worker, every execution reaches the model exactly once, and a
// worker killed mid-run is noticed.

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';

describe('2 web + 1 worker processes on PostgreSQL', { skip }, () => {
  let scaled: ScaledOut;
  let fake: FakeOpenAI;
  let tools: ToolServer;
  let collector: OtlpReceiver;
  let a: Proc;
  let b: Proc;
  let worker: Proc;
  let key: string;
  let agentId: string;
  let env: Record<string, string>;

  const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
  const get = (proc: Proc, id: string) => call<Execution>(proc, 'GET', `/v1/executions/${id}`);
  const until = (proc: Proc, id: string, done: (e: Execution) => boolean, timeoutMs = 20_000) =>
    eventually(`execution ${id}`, async () => (await get(proc, id)).body, done, { timeoutMs, everyMs: 50 });
  const final = (e: Execution) => ['succeeded', 'failed', 'cancelled'].includes(e.status);
  const requestsFor = (marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length;

  before(async () => {
    fake = await startFakeOpenAI();
    tools = await startToolServer();
    collector = await startOtlpReceiver();
    scaled = await startScaledOut({
      // Every process exports the spans it records (docs/traces.md, "Export").
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'aas-scaled',
      REDIS_URL,
      TEST_MODE_REAL_MODELS: 'true',
      OPENAI_COMPATIBLE_BASE_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    ({ a, b, worker, env } = scaled);
    ({ key } = await seedTenant(scaled.database.db, { name: 'scale' }));
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'scaled', model: 'openai-compatible/fake-1', timeoutSeconds: 120 });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    agentId = agent.body.id;
  });

  after(async () => {
    await Promise.all([stop(a), stop(b), stop(worker)]);
    await fake?.close();
    await tools?.close();
    await collector?.close();
    await scaled?.close();
  });

  it('a stream opened on web B follows a run queued on web A and run by the worker', async () => {
    fake.set({ chunkDelayMs: 30 });
    const queued = await call<Execution>(a, 'POST', `/v1/agents/${agentId}/execute`, { input: 'follow me across processes' });
    assert.equal(queued.status, 202);
    const stream = await readStream(`${b.url}/v1/executions/${queued.body.id}/stream`, { key });
    fake.set({ chunkDelayMs: 0 });
    assert.equal(stream.events[0]!.event, 'execution.started');
    assert.equal(stream.events.at(-1)!.event, 'execution.succeeded');
    const text = stream.events.filter((e) => e.event === 'text.delta').map((e) => e.data.delta).join('');
    assert.equal(text, 'Fake reply to: follow me across processes');
  });

  it('the trace of a run on the worker, read on web B while it runs: its ended model call is there at once', async () => {
    const lookup = { type: 'http', name: 'lookup', description: 'Looks up', url: `${tools.url}/wait?ms=4000`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } };
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'traced', model: 'openai-compatible/fake-1', tools: [lookup] });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const queued = await call<Execution>(a, 'POST', `/v1/agents/${agent.body.id}/execute`, { input: 'use lookup for the trace' });
    assert.equal(queued.status, 202);
    // The tool is called once the model call ended: from then on the call's span is the worker's to write.
    await eventually('the tool is called', async () => tools.requests.filter((r) => r.path === '/wait').length, (n) => n >= 1, { timeoutMs: 10_000, everyMs: 20 });
    const asked = Date.now();
    const live = await call<TraceView>(b, 'GET', `/v1/executions/${queued.body.id}/trace`);
    assert.equal(live.status, 200);
    assert.ok(Date.now() - asked < 1_000, `answered in ${Date.now() - asked} ms`);
    assert.deepEqual(live.body.spans.map((s) => s.name), ['model_call'], 'the ended call, read on another process than the one running it');
    assert.equal(live.body.spans[0]!.usage!.outputTokens > 0, true);
    assert.equal((await get(b, queued.body.id)).body.status, 'running');
    const done = await until(b, queued.body.id, final);
    assert.equal(done.status, 'succeeded');
    const whole = await call<TraceView>(b, 'GET', `/v1/executions/${queued.body.id}/trace`);
    assert.deepEqual(whole.body.spans.map((s) => s.name).sort(), ['execution', 'model_call', 'model_call', 'queue_wait', 'tool_call']);
  });

  it('OTLP export: a run queued on web A, paused, approved on web B with a traceparent, run by the worker: every span reaches the collector as read, the wait linked to the decision', async () => {
    const refund = { type: 'http', name: 'refund', description: 'Refunds', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } }, approval: 'always' };
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'exported', model: 'openai-compatible/fake-1', tools: [refund] });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const queued = await call<Execution>(a, 'POST', `/v1/agents/${agent.body.id}/execute`, { input: 'use refund for order 9' });
    const paused = await until(b, queued.body.id, (e) => e.status === 'requires_action');
    const approver = { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) };
    const decided = await fetch(`${b.url}/v1/executions/${paused.id}/approvals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${approver.traceId}-${approver.spanId}-01` },
      body: JSON.stringify({ decisions: [{ toolCallId: paused.requiredAction!.toolCalls[0]!.id, approve: true }] }),
    });
    assert.equal(decided.status, 200);
    const done = await until(a, queued.body.id, final);
    assert.equal(done.status, 'succeeded');
    const read = await call<TraceView>(b, 'GET', `/v1/executions/${queued.body.id}/trace`);
    assert.deepEqual(read.body.spans.map((s) => s.name).sort(), ['approval_wait', 'execution', 'model_call', 'model_call', 'queue_wait', 'tool_call']);
    const got = await eventually(
      'the spans reach the collector',
      async () => collector.spans.filter((s) => s.traceId === done.traceId),
      (spans) => spans.length === read.body.spans.length,
      { timeoutMs: 10_000, everyMs: 50 },
    );
    for (const want of read.body.spans) {
      const s = got.find((g) => g.spanId === want.id);
      assert.ok(s, `span ${want.name} exported`);
      assert.equal(s.parentSpanId, want.parentId ?? '');
      assert.equal(s.resource['service.name'], 'aas-scaled');
      assert.equal(s.attributes['aas.execution.id'], queued.body.id);
    }
    assert.deepEqual(got.find((s) => s.name === 'approval_wait')!.links, [approver], 'the wait links to the deciding request’s span');
  });

  it('versions: production moved on web A, an execution queued on web B, the worker runs the version moved to', async () => {
    // Version 1 answers; version 2 caps a run at 1 token (max_tokens_exceeded): which one the worker ran shows.
    const agent = await call<{ id: string; version: number }>(a, 'POST', '/v1/agents', { name: 'versioned', model: 'openai-compatible/fake-1' });
    const v2 = await call<{ version: number }>(a, 'PATCH', `/v1/agents/${agent.body.id}`, { maxTotalTokens: 1 });
    assert.equal(v2.body.version, 2);
    const runOnB = async () => {
      const queued = await call<Execution>(b, 'POST', `/v1/agents/${agent.body.id}/execute`, { input: 'which version' });
      assert.equal(queued.status, 202);
      return until(a, queued.body.id, final);
    };
    const latest = await runOnB();
    assert.deepEqual([latest.agentVersion, latest.status, latest.error?.code], [2, 'failed', 'max_tokens_exceeded']);
    const moved = await call<{ labels: Record<string, number> }>(a, 'PUT', `/v1/agents/${agent.body.id}/labels/production`, { version: 1 });
    assert.deepEqual(moved.body.labels, { production: 1 });
    const rolledBack = await runOnB();
    assert.deepEqual([rolledBack.agentVersion, rolledBack.status], [1, 'succeeded'], 'the next execution after the move runs version 1');
    await call(a, 'PUT', `/v1/agents/${agent.body.id}/labels/production`, { version: 'latest' });
    const forward = await runOnB();
    assert.equal(forward.agentVersion, 2);
  });

  it('a cancel on web B aborts the model call in the worker within a second', async () => {
    const queued = await call<Execution>(a, 'POST', `/v1/agents/${agentId}/execute`, { input: 'slow cancel-me-please' });
    await fake.waitFor(() => requestsFor('cancel-me-please') === 1, 10_000);
    const abortedBefore = fake.aborted;
    const started = Date.now();
    const cancelled = await call<Execution>(b, 'POST', `/v1/executions/${queued.body.id}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    await fake.waitFor(() => fake.aborted > abortedBefore, 1_000);
    assert.ok(Date.now() - started < 1_500);
    assert.equal((await get(a, queued.body.id)).body.status, 'cancelled');
  });

  it('200 executions spread over both web processes each reach the model exactly once', async () => {
    const ids = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await call<Execution>(i % 2 ? a : b, 'POST', `/v1/agents/${agentId}/execute`, { input: `bulk-${i}-marker` });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        return res.body.id;
      }),
    );
    const done = await Promise.all(ids.map((id, i) => until(i % 2 ? b : a, id, final, 60_000)));
    assert.deepEqual(new Set(done.map((e) => e.status)), new Set(['succeeded']));
    for (let i = 0; i < 200; i++) assert.equal(requestsFor(`bulk-${i}-marker"`), 1, `bulk-${i} reached the model ${requestsFor(`bulk-${i}-marker"`)} times`);
  });

  it('a worker killed mid-run: worker_lost within 60 s, the model not called again; queued work goes to a new worker', async () => {
    const running = await call<Execution>(a, 'POST', `/v1/agents/${agentId}/execute`, { input: 'slow kill-the-worker' });
    await fake.waitFor(() => requestsFor('kill-the-worker') === 1, 10_000);
    worker.child.kill('SIGKILL');
    await new Promise((r) => worker.child.once('exit', r));
    const queued = await call<Execution>(b, 'POST', `/v1/agents/${agentId}/execute`, { input: 'queued-while-no-worker' });
    assert.equal(queued.status, 202);
    // No worker is up: nothing may run it, and nothing happening has no event to wait for.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await get(a, queued.body.id)).body.status, 'queued');
    const killedAt = Date.now();
    worker = await startWorker({ ...env, ...QUICK_LOST_WORKER });
    const picked = await until(a, queued.body.id, final, 30_000);
    assert.equal(picked.status, 'succeeded');
    const lost = await until(b, running.body.id, final, 60_000);
    assert.equal(lost.status, 'failed');
    assert.equal(lost.error?.code, 'worker_lost');
    assert.ok(Date.now() - killedAt < 60_000);
    // A second model call would come after the run was failed: a second for it to (wrongly) arrive.
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(requestsFor('kill-the-worker'), 1, 'the model was not called a second time');
    const stream = await readStream(`${b.url}/v1/executions/${running.body.id}/stream`, { key });
    assert.ok(FINAL_EVENTS.includes(stream.events.at(-1)!.event));
  });
});
