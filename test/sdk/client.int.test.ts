// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFlakyProxy, type FlakyProxy } from '../fakes/flaky-proxy';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { ApiError, AuthenticationError, BadRequestError, Client, NotFoundError, PermissionDeniedError, RateLimitError, type ExecutionEvent } from '../../sdk/src/index';

// The typed client against the real server (docs/sdk.md), through a real proxy that loses
// answers and cuts streams: a lost answer is retried under the same Idempotency-Key and runs the
// agent once; a cut stream resumes without a lost or repeated event; a 429 is waited out.

let api: TestServer;
let proxy: FlakyProxy;
let tools: ToolServer;
let owner: SeededKey;
/** A key of a workspace allowed 2 requests a minute; its window opens in before(). */
let limited: SeededKey;
let limitedWindowAt = 0;
before(async () => {
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  tools = await startToolServer();
  proxy = await startFlakyProxy(api.url);
  owner = await api.seed.key({ ...UNLIMITED });
  limited = await api.seed.key({ plan: 'enterprise', customRpm: 2 });
  limitedWindowAt = Date.now();
  assert.equal((await api.request('GET', '/v1/agents', { key: limited.key })).status, 200);
});
after(async () => {
  await tools?.close();
  await proxy?.close();
  await api?.close();
});

const client = (key = owner.key, opts: { maxRetries?: number } = {}) => new Client({ apiKey: key, baseUrl: proxy.url, ...opts });
const executeCalls = () => proxy.seen.filter((s) => s.method === 'POST' && /\/execute$/.test(s.path));

describe('the typed client', () => {
  it('creates, pages through with for await, updates and deletes; errors are typed', async () => {
    const c = client();
    const made = await Promise.all([1, 2, 3, 4, 5].map((n) => c.agents.create({ name: `Paged ${n}`, instructions: 'Be brief.' })));
    const seen: string[] = [];
    for await (const agent of c.agents.list({ limit: 2 })) seen.push(agent.id);
    assert.deepEqual(new Set(made.map((a) => a.id)), new Set(seen.filter((id) => made.some((a) => a.id === id))));
    assert.equal(new Set(seen).size, seen.length, 'no item twice');
    const first = await c.agents.list({ limit: 2 });
    assert.equal(first.data.length, 2);
    assert.equal(first.hasMore, true);
    const second = await first.nextPage();
    assert.notEqual(second!.data[0]!.id, first.data[0]!.id);

    const updated = await c.agents.update(made[0]!.id, { name: 'Renamed' });
    assert.equal(updated.name, 'Renamed');
    assert.equal((await c.agents.delete(made[0]!.id)).deleted, true);
    const gone = await c.agents.retrieve(made[0]!.id).catch((e: unknown) => e);
    assert.ok(gone instanceof NotFoundError);
    assert.equal(gone.status, 404);
    assert.equal(gone.code, 'resource_not_found');
    assert.equal(gone.type, 'invalid_request_error');
    assert.match(gone.requestId ?? '', /^req_/);

    const bad = await c.agents.create({ name: '' }).catch((e: unknown) => e);
    assert.ok(bad instanceof BadRequestError);
    assert.equal(bad.param, 'name');
    const unknownKey = await client('svc_test_sk_' + 'x'.repeat(38)).agents.list().catch((e: unknown) => e);
    assert.ok(unknownKey instanceof AuthenticationError);
    const reader = await api.seed.key({ ...UNLIMITED, scopes: ['agents:read'] });
    const denied = await client(reader.key).agents.create({ name: 'No' }).catch((e: unknown) => e);
    assert.ok(denied instanceof PermissionDeniedError);
    assert.equal(denied.code, 'insufficient_scope');
  });

  it('a lost answer is retried with the same Idempotency-Key: the agent runs once, the answer is the first run', async () => {
    const c = client();
    const agent = await c.agents.create({ name: 'Once' });
    const before = executeCalls().length;
    proxy.rules.push({ kind: 'lose-answer', match: (req) => req.method === 'POST' && req.url!.endsWith(`/agents/${agent.id}/execute`) });
    const run = await c.agents.execute(agent.id, { input: 'Hello', wait: true });
    assert.equal(run.status, 'succeeded');
    const calls = executeCalls().slice(before);
    assert.equal(calls.length, 2, 'sent twice');
    assert.ok(calls[0]!.headers['idempotency-key']);
    assert.equal(calls[1]!.headers['idempotency-key'], calls[0]!.headers['idempotency-key']);
    const runs = await c.executions.list({ agentId: agent.id }).then((p) => p.data);
    assert.deepEqual(runs.map((r) => r.id), [run.id], 'one execution');
  });

  it('a stream cut mid-way resumes with Last-Event-ID: every event once, in order', async () => {
    const c = client();
    const agent = await c.agents.create({ name: 'Streamer', model: 'sandbox/slow' });
    proxy.rules.push({ kind: 'cut-stream', match: (req) => req.url!.endsWith('/execute'), events: 2 });
    const stream = c.agents.execute(agent.id, { input: 'Tell me a longer story, please.', stream: true });
    const events: ExecutionEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.equal(events.at(-1)!.type, 'execution.succeeded');
    const resumed = proxy.seen.filter((s) => s.path.endsWith(`/executions/${stream.executionId}/stream`));
    assert.equal(resumed.length, 1, 'one reconnection');
    assert.equal(resumed[0]!.headers['last-event-id'], '2');
    // The same as the execution's whole stream, read again in one go.
    const whole: ExecutionEvent[] = [];
    for await (const event of c.executions.stream(stream.executionId!)) whole.push(event);
    assert.deepEqual(events, whole);
    assert.ok(events.some((e) => e.type === 'text.delta'));
  });

  it('a stream cut before its first event is asked for again under the same key: the same execution, from the start', async () => {
    const c = client();
    const agent = await c.agents.create({ name: 'Early cut', model: 'sandbox/slow' });
    const before = executeCalls().length;
    proxy.rules.push({ kind: 'cut-stream', match: (req) => req.url!.endsWith(`/agents/${agent.id}/execute`), events: 0 });
    const stream = c.agents.execute(agent.id, { input: 'Hello', stream: true });
    const text = await stream.text();
    assert.ok(text.length > 0);
    const calls = executeCalls().slice(before);
    assert.equal(calls.length, 2);
    assert.equal(calls[1]!.headers['idempotency-key'], calls[0]!.headers['idempotency-key']);
    const runs = await c.executions.list({ agentId: agent.id }).then((p) => p.data);
    assert.equal(runs.length, 1, 'one execution');
    assert.equal(runs[0]!.id, stream.executionId);
  });

  it('a decision’s stream cut mid-way resumes from its last event; the approved call runs once', async () => {
    const c = client();
    const agent = await c.agents.create({
      name: 'Refunds',
      model: 'sandbox/slow',
      tools: [{ type: 'http', name: 'refund', description: 'Refunds an order', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }, approval: 'always' }],
    });
    const paused = await c.agents.execute(agent.id, { input: 'refund order 7', wait: true });
    assert.equal(paused.status, 'requires_action');
    const calls = () => tools.requests.filter((r) => r.path === '/echo').length;
    const before = calls();
    proxy.rules.push({ kind: 'cut-stream', match: (req) => req.url!.endsWith(`/executions/${paused.id}/approvals`), events: 2 });
    const stream = c.executions.approve(paused.id, { decisions: [{ toolCallId: paused.requiredAction!.toolCalls[0]!.id, approve: true }], stream: true });
    const events: ExecutionEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.equal(events.at(-1)!.type, 'execution.succeeded');
    const resumed = proxy.seen.filter((s) => s.path.endsWith(`/executions/${paused.id}/stream`));
    assert.equal(resumed.length, 1, 'followed once after the cut');
    const seqs = resumed[0]!.headers['last-event-id'];
    assert.ok(seqs && Number(seqs) > 0);
    assert.equal(calls() - before, 1, 'the approved call ran once');
    // No event twice: the decisions' events are those of the whole stream after the pause.
    const whole: ExecutionEvent[] = [];
    for await (const event of c.executions.stream(paused.id)) whole.push(event);
    assert.deepEqual(events, whole.slice(whole.length - events.length));
  });

  it('a finished execution followed after its last event ends at once, with nothing; a list started with `before` pages on', async () => {
    const c = client();
    const agent = await c.agents.create({ name: 'Done' });
    const stream = c.agents.execute(agent.id, { input: 'Hello', stream: true });
    await stream.finalExecution();
    const started = Date.now();
    const after: ExecutionEvent[] = [];
    for await (const event of c.executions.stream(stream.executionId!, { after: stream.lastEventId! })) after.push(event);
    assert.deepEqual(after, []);
    assert.ok(Date.now() - started < 2_000, 'no reconnections');
    const newest = (await c.agents.list({ limit: 1 })).data[0]!;
    const older = await c.agents.list({ limit: 2, before: newest.id }).toArray(5);
    assert.ok(Array.isArray(older), 'no 400 parameter_conflict on the second page');
  });

  it('an Idempotency-Key given as a header is the one sent (names are case-insensitive)', async () => {
    const c = client();
    const agent = await c.agents.create({ name: 'Keyed' }, { headers: { 'Idempotency-Key': 'mine-1' } });
    const again = await c.agents.create({ name: 'Keyed' }, { idempotencyKey: 'mine-1' });
    assert.equal(again.id, agent.id, 'replayed, not created twice');
    const sentKeys = proxy.seen.filter((s) => s.method === 'POST' && s.path === '/v1/agents').map((s) => s.headers['idempotency-key']);
    assert.deepEqual(sentKeys.slice(-2), ['mine-1', 'mine-1']);
  });

  it('wait and finalExecution resolve to the finished execution; the conversation follows', async () => {
    const c = client();
    const agent = await c.agents.create({ name: 'Talker' });
    const first = await c.agents.execute(agent.id, { input: 'One', wait: true });
    const second = await c.agents.execute(agent.id, { input: 'Two', conversationId: first.conversationId, stream: true }).finalExecution();
    assert.equal(second.status, 'succeeded');
    const conversation = await c.conversations.retrieve(first.conversationId);
    assert.deepEqual(conversation.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
  });

  it('a 429 is waited out (Retry-After), then the call succeeds; with retries off it is a RateLimitError', async () => {
    const c = client(limited.key);
    await c.agents.list(); // the window's second request
    const refused = await client(limited.key, { maxRetries: 0 }).agents.list().catch((e: unknown) => e);
    assert.ok(refused instanceof RateLimitError);
    const wait = Number(refused.headers!.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    const started = Date.now();
    const page = await c.agents.list();
    assert.ok(Array.isArray(page.data));
    assert.ok(Date.now() - started >= (wait - 1) * 1000, 'waited');
    assert.ok(Date.now() - limitedWindowAt >= 59_000, 'after the window');
  });

  it('a key is required', () => {
    assert.throws(() => new Client({ apiKey: '' }), ApiError);
  });
});
