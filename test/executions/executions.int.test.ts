import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, FINAL_EVENTS, readStream, waitFor, type Conversation, type Execution } from './helpers';
import { until } from '../eventually';

// Executions on the offline sandbox model (test keys run there): the three execute modes, the
// resumable event stream, conversations, cancellation, and the input rules of docs/api.md
// ("Executions").

let api: TestServer;
let owner: SeededKey;
let agentId: string;
/** Executions this process runs at once (few, so a test can take them all). */
const SLOTS = 20;

before(async () => {
  api = await startServer({ env: { EXECUTION_CONCURRENCY: String(SLOTS) }, dashboardSession: testSessions() });
  owner = await api.seed.key({ ...UNLIMITED });
  agentId = await createAgent(api, owner.key, { instructions: 'Be brief.' });
});
after(() => api?.close());

describe('execute', () => {
  it('default: 202 queued at once, then succeeded with output, steps and usage', async () => {
    const res = await execute(api, owner.key, agentId, { input: 'hello there', metadata: { ticket: 'T-1' } });
    expectStatus(res, 202);
    assert.equal(res.body.status, 'queued');
    assert.match(res.body.id, /^exe_/);
    assert.match(res.body.conversationId, /^conv_/);
    assert.deepEqual(res.body.metadata, { ticket: 'T-1' });
    assert.equal(res.body.startedAt, null);
    const done = await waitFor(api, owner.key, res.body.id);
    assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
    assert.equal(done.output, 'Echo: hello there');
    assert.equal(done.steps.length, 1);
    assert.ok(done.usage.inputTokens > 0 && done.usage.outputTokens > 0);
    assert.equal(done.usage.totalTokens, done.usage.inputTokens + done.usage.outputTokens);
    assert.equal(done.error, null);
    assert.equal(done.cached, false);
    assert.match(done.model, /^sandbox\//);
    assert.ok(done.startedAt! >= done.createdAt && done.completedAt! >= done.startedAt!);
  });

  it('wait: true answers 200 with the finished execution', async () => {
    const res = await execute(api, owner.key, agentId, { input: 'wait for me', wait: true });
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded');
    assert.equal(res.body.output, 'Echo: wait for me');
    // The key that started it is kept (what a budget on a key counts), never shown.
    const [row] = await api.query<{ key_id: string | null }>(sql`select key_id from executions where id = ${res.body.id}`);
    assert.equal(row!.key_id, owner.id);
    assert.ok(!('keyId' in res.body));
  });

  it('stream: true answers an event stream: started, deltas, the terminal event with the execution', async () => {
    const res = await readStream(`${api.url}/v1/agents/${agentId}/execute`, { method: 'POST', key: owner.key, body: { input: 'stream this reply please', stream: true } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    const types = res.events.map((e) => e.event);
    assert.equal(types[0], 'execution.started');
    assert.equal(types.at(-1), 'execution.succeeded');
    const text = res.events.filter((e) => e.event === 'text.delta').map((e) => e.data.delta).join('');
    assert.equal(text, 'Echo: stream this reply please');
    assert.deepEqual(res.events.map((e) => e.id), res.events.map((_, i) => i + 1), 'ids are the sequence 1..n');
    const final = res.events.at(-1)!.data.execution as Execution;
    assert.equal(final.output, 'Echo: stream this reply please');
  });

  it('booleans must be real JSON booleans; wait and stream together conflict', async () => {
    expectError(await execute(api, owner.key, agentId, { input: 'x', wait: 'false' }), 400, 'invalid_parameter', 'wait');
    expectError(await execute(api, owner.key, agentId, { input: 'x', stream: 1 }), 400, 'invalid_parameter', 'stream');
    expectError(await execute(api, owner.key, agentId, { input: 'x', wait: true, stream: true }), 400, 'parameter_conflict', 'stream');
  });

  it('input is required, unknown fields and inherited-name metadata keys are refused, nothing is written', async () => {
    const count = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from executions`))[0]!.n;
    const n = await count();
    expectError(await execute(api, owner.key, agentId, {}), 400, 'missing_required_field', 'input');
    expectError(await execute(api, owner.key, agentId, { input: '' }), 400, 'invalid_parameter', 'input');
    expectError(await execute(api, owner.key, agentId, { input: 'x', status: 'succeeded' }), 400, 'unknown_parameter', 'status');
    const proto = await api.request('POST', `/v1/agents/${agentId}/execute`, {
      key: owner.key,
      rawBody: '{"input":"x","metadata":{"__proto__":{"polluted":"yes"}}}',
      headers: { 'content-type': 'application/json' },
    });
    expectError(proto, 400, 'invalid_parameter', 'metadata');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expectError(await execute(api, owner.key, agentId, { input: 'x', metadata: many }), 400, 'invalid_parameter', 'metadata');
    expectError(await api.request('POST', `/v1/agents/${agentId}/execute?wait=true`, { key: owner.key, body: { input: 'x' } }), 400, 'unknown_parameter');
    assert.equal(await count(), n);
  });

  it('an unknown, deleted or foreign agent is 404', async () => {
    expectError(await execute(api, owner.key, 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK', { input: 'x' }), 404, 'resource_not_found');
    const doomed = await createAgent(api, owner.key);
    expectStatus(await api.request('DELETE', `/v1/agents/${doomed}`, { key: owner.key }), 200);
    expectError(await execute(api, owner.key, doomed, { input: 'x' }), 404, 'resource_not_found');
  });
});

describe('event stream', () => {
  it('replays a finished execution from the start, or after Last-Event-ID', async () => {
    const res = await execute(api, owner.key, agentId, { input: 'replay me', wait: true });
    const all = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: owner.key });
    assert.equal(all.status, 200);
    assert.ok(FINAL_EVENTS.includes(all.events.at(-1)!.event));
    const rest = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: owner.key, headers: { 'last-event-id': '1' } });
    assert.deepEqual(rest.events.map((e) => e.id), all.events.slice(1).map((e) => e.id));
    // The deltas share rows in the log (server/modules/executions/packs.ts): read from the middle
    // of them, each comes with its own id, in order, and they still join to the output.
    const deltas = all.events.filter((e) => e.event === 'text.delta');
    assert.ok(deltas.length >= 3, 'several deltas');
    const [stored] = await api.query<{ rows: number }>(sql`select count(*)::int as rows from execution_events where execution_id = ${res.body.id}`);
    const rows = stored!.rows;
    assert.ok(rows < all.events.length, `${rows} rows for ${all.events.length} events`);
    const middle = all.events.indexOf(deltas[1]!);
    const fromMiddle = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: owner.key, headers: { 'last-event-id': String(deltas[1]!.id) } });
    assert.deepEqual(fromMiddle.events, all.events.slice(middle + 1));
    assert.equal(deltas.map((e) => e.data.delta).join(''), res.body.output);
    expectError(
      await api.request('GET', `/v1/executions/${res.body.id}/stream`, { key: owner.key, headers: { 'last-event-id': 'abc' } }),
      400,
      'invalid_parameter',
      'Last-Event-ID',
    );
  });

  it('follows a running execution live until its terminal event', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const res = await execute(api, owner.key, slow, { input: 'one two three four' });
    const live = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: owner.key });
    assert.ok(live.events.filter((e) => e.event === 'text.delta').length >= 3, 'several deltas as they happen');
    assert.equal(live.events.at(-1)!.event, 'execution.succeeded');
  });
});

describe('conversations', () => {
  it('an execution starts a conversation; the next one continues it with the history', async () => {
    const first = await execute(api, owner.key, agentId, { input: 'first message', wait: true });
    const conversationId = first.body.conversationId;
    const second = await execute(api, owner.key, agentId, { input: 'second message', conversationId, wait: true });
    expectStatus(second, 200);
    assert.equal(second.body.conversationId, conversationId);
    const conv = await api.request<Conversation>('GET', `/v1/conversations/${conversationId}`, { key: owner.key });
    expectStatus(conv, 200);
    assert.deepEqual(conv.body.messages.map((m) => [m.role, m.content]), [
      ['user', 'first message'],
      ['assistant', 'Echo: first message'],
      ['user', 'second message'],
      ['assistant', 'Echo: second message'],
    ]);
    assert.deepEqual(conv.body.messages.map((m) => m.executionId), [first.body.id, first.body.id, second.body.id, second.body.id]);
  });

  it('one execution at a time: a second is 409 conversation_busy, and so is DELETE', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const running = await execute(api, owner.key, slow, { input: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') });
    const { conversationId } = running.body;
    expectError(await execute(api, owner.key, slow, { input: 'again', conversationId }), 409, 'conversation_busy');
    expectError(await api.request('DELETE', `/v1/conversations/${conversationId}`, { key: owner.key }), 409, 'conversation_busy');
    // Its end (here: a cancel) frees the conversation.
    expectStatus(await api.request('POST', `/v1/executions/${running.body.id}/cancel`, { key: owner.key }), 200);
    expectStatus(await execute(api, owner.key, slow, { input: 'now', conversationId, wait: true }), 200);
    const del = await api.request<{ id: string; deleted: boolean }>('DELETE', `/v1/conversations/${conversationId}`, { key: owner.key });
    expectStatus(del, 200);
    assert.deepEqual(del.body, { id: conversationId, deleted: true });
    expectError(await api.request('GET', `/v1/conversations/${conversationId}`, { key: owner.key }), 404, 'resource_not_found');
  });

  it("another agent's conversation is 400; an unknown one is 404", async () => {
    const other = await createAgent(api, owner.key);
    const res = await execute(api, owner.key, other, { input: 'x', wait: true });
    expectError(await execute(api, owner.key, agentId, { input: 'y', conversationId: res.body.conversationId }), 400, 'invalid_parameter', 'conversationId');
    expectError(await execute(api, owner.key, agentId, { input: 'y', conversationId: 'conv_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }), 404, 'resource_not_found', 'conversationId');
  });

  it('concurrent executes on one conversation: exactly one wins', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const first = await execute(api, owner.key, slow, { input: 'start', wait: true });
    const { conversationId } = first.body;
    // A long run (sandbox/slow: 200 ms a word), so the winner still holds the conversation when the others arrive.
    const input = Array.from({ length: 40 }, (_, i) => `race${i}`).join(' ');
    const results = await Promise.all(Array.from({ length: 8 }, () => execute(api, owner.key, slow, { input, conversationId })));
    assert.equal(results.filter((r) => r.status === 202).length, 1, results.map((r) => r.status).join(','));
    assert.equal(results.filter((r) => r.status === 409).length, 7);
    const winner = results.find((r) => r.status === 202)!;
    expectStatus(await api.request('POST', `/v1/executions/${winner.body.id}/cancel`, { key: owner.key }), 200);
  });
});

describe('cancel', () => {
  it('a running execution becomes cancelled at once and stays cancelled; cancelling again is 409', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const res = await execute(api, owner.key, slow, { input: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') });
    await waitFor(api, owner.key, res.body.id, (e) => e.status === 'running');
    const cancelled = await api.request<Execution>('POST', `/v1/executions/${res.body.id}/cancel`, { key: owner.key });
    expectStatus(cancelled, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.ok(cancelled.body.completedAt);
    expectError(await api.request('POST', `/v1/executions/${res.body.id}/cancel`, { key: owner.key }), 409, 'execution_not_cancellable');
    // A late write of the aborted run would land before its run ends in this process: wait for that.
    await until('the aborted run ended in this process', () => !api.runtime.executions!.holds(res.body.id));
    const later = await waitFor(api, owner.key, res.body.id);
    assert.equal(later.status, 'cancelled', 'a late worker never overwrites cancelled');
    const stream = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: owner.key });
    assert.equal(stream.events.at(-1)!.event, 'execution.cancelled');
    // The conversation is free again.
    expectStatus(await execute(api, owner.key, slow, { input: 'next', conversationId: res.body.conversationId }), 202);
  });

  it('a finished execution is not cancellable (409), an unknown one is 404', async () => {
    const res = await execute(api, owner.key, agentId, { input: 'done', wait: true });
    expectError(await api.request('POST', `/v1/executions/${res.body.id}/cancel`, { key: owner.key }), 409, 'execution_not_cancellable');
    expectError(await api.request('POST', '/v1/executions/exe_01JD8X3ZQ2N6W5V4T3S2R1P0MK/cancel', { key: owner.key }), 404, 'resource_not_found');
  });

  it('deleting an agent cancels its queued and running executions', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const res = await execute(api, owner.key, slow, { input: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') });
    expectStatus(await api.request('DELETE', `/v1/agents/${slow}`, { key: owner.key }), 200);
    const after = await waitFor(api, owner.key, res.body.id);
    assert.equal(after.status, 'cancelled');
  });
});

describe('list', () => {
  it('filters by agentId, status and conversationId, newest first', async () => {
    const a = await createAgent(api, owner.key);
    const e1 = await execute(api, owner.key, a, { input: 'one', wait: true });
    const e2 = await execute(api, owner.key, a, { input: 'two', conversationId: e1.body.conversationId, wait: true });
    const byAgent = await api.request<{ data: Execution[] }>('GET', `/v1/executions?agentId=${a}`, { key: owner.key });
    expectStatus(byAgent, 200);
    assert.deepEqual(byAgent.body.data.map((e) => e.id), [e2.body.id, e1.body.id]);
    const byConv = await api.request<{ data: Execution[] }>('GET', `/v1/executions?conversationId=${e1.body.conversationId}&status=succeeded&limit=1`, { key: owner.key });
    assert.deepEqual(byConv.body.data.map((e) => e.id), [e2.body.id]);
    expectError(await api.request('GET', '/v1/executions?status=done', { key: owner.key }), 400, 'invalid_parameter', 'status');
    expectError(await api.request('GET', `/v1/executions?after=${a}`, { key: owner.key }), 400, 'invalid_cursor');
  });

  it('every execution says what started it (trigger), and scheduleId lists one schedule’s runs, in the caller’s workspace only', async () => {
    const a = await createAgent(api, owner.key);
    const [queued, waited] = [await execute(api, owner.key, a, { input: 'one' }), await execute(api, owner.key, a, { input: 'two', wait: true })];
    for (const res of [queued, waited]) assert.deepEqual(res.body.trigger, { type: 'api' });
    const read = await api.request<Execution>('GET', `/v1/executions/${waited.body.id}`, { key: owner.key });
    assert.deepEqual(read.body.trigger, { type: 'api' });
    // A message sent in the dashboard's playground (executions.execute) says so, on both faces.
    const played = await dashboardCall<Execution>(api, owner.workspace, 'mutation', 'executions.execute', { id: a, input: 'from the playground' });
    assert.equal(played.status, 200, JSON.stringify(played.error));
    assert.deepEqual(played.result!.trigger, { type: 'playground' });
    const readPlayed = await api.request<Execution>('GET', `/v1/executions/${played.result!.id}`, { key: owner.key });
    assert.deepEqual(readPlayed.body.trigger, { type: 'playground' });
    // A schedule's run (what the schedule ticker will write), made here in the database.
    const scheduled = { type: 'schedule', scheduleId: 'sch_01JD8X41B2C3D4E5F6G7H8J9K0', scheduledFor: '2026-11-25T10:00:00.000Z' };
    await api.query(sql`update executions set trigger = ${JSON.stringify(scheduled)}::json, schedule_id = ${scheduled.scheduleId} where id = ${waited.body.id}`);
    const bySchedule = await api.request<{ data: Execution[] }>('GET', `/v1/executions?scheduleId=${scheduled.scheduleId}`, { key: owner.key });
    expectStatus(bySchedule, 200);
    assert.deepEqual(bySchedule.body.data.map((e) => [e.id, e.trigger]), [[waited.body.id, scheduled]]);
    const none = await api.request<{ data: Execution[] }>('GET', '/v1/executions?scheduleId=sch_unknown', { key: owner.key });
    assert.deepEqual(none.body.data, []);
    const stranger = await api.seed.key({ ...UNLIMITED });
    const theirs = await api.request<{ data: Execution[] }>('GET', `/v1/executions?scheduleId=${scheduled.scheduleId}`, { key: stranger.key });
    assert.deepEqual(theirs.body.data, [], 'another workspace sees none of them');
  });
});

describe('in place', () => {
  // A process that runs workers runs a `wait` or `stream` execution itself when it has a free
  // slot: created running, never queued; with every slot taken it goes through the queue as usual.

  it('wait and stream run in the process that took them: no time queued', async () => {
    const res = await execute(api, owner.key, agentId, { input: 'right here', wait: true });
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded');
    assert.equal(res.body.startedAt, res.body.createdAt);
    const queued = await execute(api, owner.key, agentId, { input: 'via the queue' });
    expectStatus(queued, 202);
    assert.equal(queued.body.status, 'queued', 'the default (202) mode still goes through the queue');
    const done = await waitFor(api, owner.key, queued.body.id);
    assert.ok(done.startedAt! > done.createdAt, 'claimed after it was queued');
  });

  it('a streamed run in place is cancelled at once from another request', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    const input = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const streaming = readStream(`${api.url}/v1/agents/${slow}/execute`, { method: 'POST', key: owner.key, body: { input, stream: true } });
    const list = async () => (await api.request<{ data: Execution[] }>('GET', `/v1/executions?agentId=${slow}&status=running`, { key: owner.key })).body.data;
    let running: Execution[] = [];
    for (let i = 0; i < 100 && running.length === 0; i++) {
      running = await list();
      if (running.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(running.length, 1);
    const t0 = Date.now();
    expectStatus(await api.request('POST', `/v1/executions/${running[0]!.id}/cancel`, { key: owner.key }), 200);
    const stream = await streaming;
    assert.equal(stream.events.at(-1)!.event, 'execution.cancelled');
    assert.ok(Date.now() - t0 < 1_000, 'the stream ends within a second');
    // As above: once its run has ended here, a late write of it would have landed.
    await until('the aborted run ended in this process', () => !api.runtime.executions!.holds(running[0]!.id));
    assert.equal((await waitFor(api, owner.key, running[0]!.id)).status, 'cancelled');
  });

  it('with every slot taken, a wait goes through the queue and still answers', async () => {
    const slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
    // Each busy run streams ~40 parts 200 ms apart (~8 s): none ends before the wait is asked for,
    // however slow the machine (with 4 parts, one sometimes had, and the wait ran in place); they
    // are cancelled instead of awaited.
    const long = Array.from({ length: 36 }, (_, w) => `w${w}`).join(' ');
    const busy = await Promise.all(Array.from({ length: SLOTS }, (_, i) => execute(api, owner.key, slow, { input: `hold slot ${i} ${long}` })));
    for (const b of busy) expectStatus(b, 202);
    await Promise.all(busy.map((b) => waitFor(api, owner.key, b.body.id, (e) => e.status === 'running')));
    const asked = execute(api, owner.key, agentId, { input: 'after the others', wait: true });
    // Once it is queued, one busy run is cancelled: its slot goes to the wait.
    for (let queued = 0; queued === 0; await new Promise((r) => setTimeout(r, 20))) {
      queued = (await api.query<{ n: number }>(sql`select count(*)::int as n from executions where agent_id = ${agentId} and status = 'queued'`))[0]!.n;
    }
    expectStatus(await api.request('POST', `/v1/executions/${busy[0]!.body.id}/cancel`, { key: owner.key }), 200);
    const res = await asked;
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded');
    assert.ok(res.body.startedAt! > res.body.createdAt, 'it waited for a slot');
    await Promise.all(busy.slice(1).map((b) => api.request('POST', `/v1/executions/${b.body.id}/cancel`, { key: owner.key })));
    await Promise.all(busy.map((b) => waitFor(api, owner.key, b.body.id)));
  });
});
