// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus } from '../expect';
import { sql } from 'drizzle-orm';
import { DB_KIND, startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, FINAL_EVENTS, readStream, waitFor, type Conversation, type Execution } from './helpers';

// Queued turns (docs/executions.md, "Queued turns"): `ifBusy: "enqueue"` on a busy conversation
// creates the execution `queued` behind the running one and any turns already waiting; they run
// in order, each seeing the answers before it; a waiting turn can be cancelled and leaves the
// line; at most 10 wait; `wait` and `stream` wait for the turn; `reject` stays the default.

let api: TestServer;
let owner: SeededKey;
let slow: string;
before(async () => {
  api = await startServer();
  owner = await api.seed.key({ ...UNLIMITED });
  slow = await createAgent(api, owner.key, { model: 'sandbox/slow' });
});
after(() => api?.close());

/** A sandbox/slow run of about a second and a half (200 ms per streamed part). */
const WORDS = 'one two three four five six';

async function busyConversation(): Promise<Execution> {
  const first = await execute(api, owner.key, slow, { input: `first ${WORDS}` });
  expectStatus(first, 202);
  return first.body;
}

const enqueue = (conversationId: string, input: string, extra: Record<string, unknown> = {}) =>
  execute(api, owner.key, slow, { input, conversationId, ifBusy: 'enqueue', ...extra });

describe('queued turns', () => {
  it('run in order after the busy one, each with the history before it; a turn cancelled while it waits leaves the line', async () => {
    const first = await busyConversation();
    const turns: Execution[] = [];
    for (const name of ['second', 'third', 'fourth']) {
      const res = await enqueue(first.conversationId, `${name} ${WORDS}`);
      expectStatus(res, 202);
      assert.equal(res.body.status, 'queued');
      assert.equal(res.body.conversationId, first.conversationId);
      turns.push(res.body);
    }
    // The waiting turn's message is not in the conversation yet: the history stays in order.
    const now = await api.request<Conversation>('GET', `/v1/conversations/${first.conversationId}`, { key: owner.key });
    assert.deepEqual(now.body.messages.map((m) => m.content), [`first ${WORDS}`]);
    const cancelled = await api.request<Execution>('POST', `/v1/executions/${turns[1]!.id}/cancel`, { key: owner.key });
    expectStatus(cancelled, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.startedAt, null);
    const done = await Promise.all([first, turns[0]!, turns[2]!].map((e) => waitFor(api, owner.key, e.id, undefined, 30_000)));
    for (const e of done) assert.equal(e.status, 'succeeded', JSON.stringify(e.error));
    const [a, b, c] = done as [Execution, Execution, Execution];
    assert.ok(b.startedAt! >= a.completedAt!, 'the second turn started after the first finished');
    assert.ok(c.startedAt! >= b.completedAt!, 'the fourth turn started after the second finished');
    const conv = await api.request<Conversation>('GET', `/v1/conversations/${first.conversationId}`, { key: owner.key });
    assert.deepEqual(
      conv.body.messages.map((m) => `${m.role}:${m.executionId === first.id ? 'first' : m.executionId === turns[0]!.id ? 'second' : m.executionId === turns[2]!.id ? 'fourth' : 'other'}`),
      ['user:first', 'assistant:first', 'user:second', 'assistant:second', 'user:fourth', 'assistant:fourth'],
    );
    // The cancelled turn's input never reached the conversation.
    assert.ok(!conv.body.messages.some((m) => m.content.startsWith('third')));
    expectStatus(await api.request('DELETE', `/v1/conversations/${first.conversationId}`, { key: owner.key }), 200);
  });

  it('without ifBusy (or with reject) a busy conversation is still 409 conversation_busy, nothing created', async () => {
    const first = await busyConversation();
    expectError(await execute(api, owner.key, slow, { input: 'x', conversationId: first.conversationId }), 409, 'conversation_busy', 'conversationId');
    expectError(await execute(api, owner.key, slow, { input: 'x', conversationId: first.conversationId, ifBusy: 'reject' }), 409, 'conversation_busy', 'conversationId');
    expectError(await execute(api, owner.key, slow, { input: 'x', conversationId: first.conversationId, ifBusy: 'later' }), 400, 'invalid_parameter', 'ifBusy');
    const list = await api.request<{ data: Execution[] }>('GET', `/v1/executions?conversationId=${first.conversationId}`, { key: owner.key });
    assert.equal(list.body.data.length, 1);
    expectStatus(await api.request('POST', `/v1/executions/${first.id}/cancel`, { key: owner.key }), 200);
  });

  it('at most 10 turns wait; concurrent enqueues beyond that get 409, and cancelling the head hands the line on', async () => {
    const first = await busyConversation();
    const results = await Promise.all(Array.from({ length: 13 }, (_, i) => enqueue(first.conversationId, `turn ${i}`)));
    const accepted = results.filter((r) => r.status === 202);
    assert.equal(accepted.length, 10);
    for (const r of results.filter((r) => r.status !== 202)) expectError(r, 409, 'conversation_busy', 'conversationId');
    // Cancel the running head: the next waiting turn starts.
    expectStatus(await api.request('POST', `/v1/executions/${first.id}/cancel`, { key: owner.key }), 200);
    const started = await Promise.race(accepted.map((r) => waitFor(api, owner.key, r.body.id, (e) => e.status !== 'queued', 15_000)));
    assert.ok(['running', 'succeeded'].includes(started.status));
    for (const r of accepted) await api.request('POST', `/v1/executions/${r.body.id}/cancel`, { key: owner.key });
  });

  it('a waiting turn locked when the line is handed on (being cancelled) does not stall the line', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only: two connections at once' }, async () => {
    const first = await busyConversation();
    const a = (await enqueue(first.conversationId, `a ${WORDS}`)).body;
    const b = (await enqueue(first.conversationId, `b ${WORDS}`)).body;
    // Another transaction holds the first waiting turn's row (as a cancel of it would) while the head ends.
    await api.db.transaction(async (tx) => {
      await tx.execute(sql`select id from executions where id = ${a.id} for update`);
      expectStatus(await api.request('POST', `/v1/executions/${first.id}/cancel`, { key: owner.key }), 200);
      const next = await waitFor(api, owner.key, b.id, (e) => e.status !== 'queued');
      assert.notEqual(next.status, 'cancelled', 'the next free turn was handed the line');
    });
    // The skipped turn still waits, and runs after the one handed the line.
    const [doneB, doneA] = await Promise.all([waitFor(api, owner.key, b.id, undefined, 30_000), waitFor(api, owner.key, a.id, undefined, 30_000)]);
    assert.equal(doneA.status, 'succeeded');
    assert.ok(doneA.startedAt! >= doneB.completedAt!);
  });

  it('`wait: true` answers once its turn has run; `stream: true` streams it from its start', async () => {
    const first = await busyConversation();
    const waited = enqueue(first.conversationId, `waited ${WORDS}`, { wait: true });
    // The stream's turn is the second in line (the wait's is first): sent after it.
    await new Promise((r) => setTimeout(r, 100));
    const streamed = readStream(`${api.url}/v1/agents/${slow}/execute`, {
      method: 'POST',
      key: owner.key,
      body: { input: `streamed ${WORDS}`, conversationId: first.conversationId, ifBusy: 'enqueue', stream: true },
    }, 30_000);
    const w = await waited;
    expectStatus(w, 200);
    assert.equal(w.body.status, 'succeeded');
    const firstDone = await waitFor(api, owner.key, first.id);
    assert.ok(w.body.startedAt! >= firstDone.completedAt!);
    const s = await streamed;
    assert.equal(s.status, 200);
    const types = s.events.map((e) => e.event);
    assert.equal(types[0], 'execution.started');
    assert.ok(FINAL_EVENTS.includes(types.at(-1)!), types.join(','));
    const final = s.events.at(-1)!.data as unknown as { execution: Execution };
    assert.equal(final.execution.status, 'succeeded');
    assert.ok(final.execution.startedAt! >= w.body.completedAt!);
  });
});
