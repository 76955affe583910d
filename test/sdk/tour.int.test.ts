// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { Client, ConflictError, NotFoundError, OPERATIONS, verifyWebhook, WebhookVerificationError, type ExecutionEvent } from '../../sdk/src/index';
import document from '../../sdk/openapi.json' with { type: 'json' };

// Every operation of the OpenAPI document, called through the typed client against the real
// server (docs/sdk.md): the test records each request the client sends, names its operation from
// the document, and fails if one was never called. Webhook deliveries verify with verifyWebhook.

let api: TestServer;
let tools: ToolServer;
let receiver: Receiver;
let owner: SeededKey;
const sent: { method: string; path: string }[] = [];
before(async () => {
  tools = await startToolServer();
  receiver = await startReceiver();
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  await api?.close();
  await Promise.all([tools?.close(), receiver?.close()]);
});

const recording: typeof fetch = (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  sent.push({ method: (init?.method ?? 'GET').toLowerCase(), path: url.pathname });
  return fetch(input, init);
};

/** The operation a request is, by the document's path templates. */
function operationOf(method: string, path: string): string | undefined {
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, { operationId?: string }>>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(path) && item[method]?.operationId) return item[method].operationId;
  }
  return undefined;
}

describe('the typed client covers the API', () => {
  it('calls every operation of the document', async () => {
    const c = new Client({ apiKey: owner.key, baseUrl: api.url, fetch: recording });
    const schema = await c.openapi();
    assert.equal((schema as { openapi: string }).openapi.startsWith('3.1'), true);
    await c.models.list();

    // Keys.
    const key = await c.keys.create({ name: 'SDK key', scopes: ['agents:read'] });
    assert.match(key.key, /^svc_test_sk_/);
    assert.ok((await c.keys.list({ limit: 100 }).toArray()).some((k) => k.id === key.id));
    assert.equal((await c.keys.revoke(key.id)).id, key.id);

    // Agents, a paused run, approvals and streams.
    const agent = await c.agents.create({
      name: 'Refunds',
      tools: [{ type: 'http', name: 'refund', description: 'Refunds an order', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }, approval: 'always' }],
    });
    await c.agents.retrieve(agent.id);
    assert.ok((await c.agents.list()).data.some((a) => a.id === agent.id));
    await c.agents.update(agent.id, { description: 'Pays back' });
    assert.match((await c.agents.rotateToolSecret(agent.id)).toolSecret, /^tsec_|./);
    // Versions and labels: a behaviour change is version 2; staging pinned to 1, then removed.
    const v2 = await c.agents.update(agent.id, { maxSteps: 6, versionNote: 'More steps' });
    assert.equal(v2.version, 2);
    const listed = [];
    for await (const v of c.agents.listVersions(agent.id, { limit: 1 })) listed.push(v.version);
    assert.deepEqual(listed, [2, 1]);
    assert.equal((await c.agents.retrieveVersion(agent.id, 2)).note, 'More steps');
    assert.deepEqual((await c.agents.moveLabel(agent.id, 'staging', { version: 1 })).labels, { production: 2, staging: 1 });
    assert.deepEqual((await c.agents.removeLabel(agent.id, 'staging')).labels, { production: 2 });
    const paused = await c.agents.execute(agent.id, { input: 'refund order 7', wait: true });
    assert.equal(paused.status, 'requires_action');
    const callId = paused.requiredAction!.toolCalls[0]!.id;
    const resumed: ExecutionEvent[] = [];
    for await (const event of c.executions.approve(paused.id, { decisions: [{ toolCallId: callId, approve: true }], stream: true })) resumed.push(event);
    assert.equal(resumed.at(-1)!.type, 'execution.succeeded');
    assert.ok(resumed.some((e) => e.type === 'tool.result'));
    const replay: ExecutionEvent[] = [];
    for await (const event of c.executions.stream(paused.id, { after: 0 })) replay.push(event);
    assert.equal(replay.at(-1)!.type, 'execution.succeeded');
    const finished = await c.executions.retrieve(paused.id);
    assert.equal(finished.status, 'succeeded');
    // Its trace: typed spans, the wait for approval among them.
    const trace = await c.executions.trace(paused.id);
    assert.equal(trace.traceId, finished.traceId);
    assert.deepEqual([...new Set(trace.spans.map((s) => s.name))].sort(), ['approval_wait', 'execution', 'model_call', 'queue_wait', 'tool_call']);
    // Its replay from the tool's step: the recorded refund answers, nothing is refunded twice.
    const refunds = tools.requests.length;
    const again = await c.executions.replay(paused.id, { fromStep: 0, wait: true });
    assert.equal(again.status, 'succeeded');
    assert.deepEqual(again.replayOf, { executionId: paused.id, fromStep: 0, tools: 'recorded' });
    assert.equal(tools.requests.length, refunds, 'no tool called');
    const notYet = await c.executions.replay('exe_nope', { fromStep: 0 }).catch((e: unknown) => e);
    assert.ok(notYet instanceof NotFoundError);
    assert.ok((await c.executions.list({ agentId: agent.id })).data.length >= 2);
    const done = await c.executions.cancel(paused.id).catch((e: unknown) => e);
    assert.ok(done instanceof ConflictError && done.code === 'execution_not_cancellable');

    // Conversations.
    const conversations = await c.conversations.list({ agentId: agent.id });
    assert.deepEqual(conversations.data.map((x) => x.id), [again.conversationId, paused.conversationId], 'the replay’s conversation is its own');
    await c.conversations.retrieve(paused.conversationId);
    assert.equal((await c.conversations.delete(paused.conversationId)).deleted, true);

    // Schedules.
    const schedule = await c.schedules.create({ agentId: agent.id, cron: '0 9 * * MON-FRI', input: 'Summarise', enabled: false });
    await c.schedules.list();
    await c.schedules.retrieve(schedule.id);
    await c.schedules.update(schedule.id, { cron: '0 10 * * *' });
    await c.schedules.run(schedule.id);
    await c.schedules.delete(schedule.id);

    // Budgets.
    const budget = await c.budgets.create({ name: 'Cap', target: { type: 'workspace' }, limit: { tokens: 1_000_000 }, period: 'month', action: 'notify' });
    await c.budgets.list();
    await c.budgets.retrieve(budget.id);
    await c.budgets.update(budget.id, { name: 'Monthly cap' });
    await c.budgets.delete(budget.id);

    // Datasets and their items (docs/evals.md).
    const dataset = await c.datasets.create({ name: 'Orders' });
    await c.datasets.list();
    await c.datasets.retrieve(dataset.id);
    await c.datasets.update(dataset.id, { description: 'Order questions' });
    const item = await c.datasets.createItem(dataset.id, { input: 'Where is 1042?', expected: 'Shipped' });
    await c.datasets.listItems(dataset.id);
    await c.datasets.retrieveItem(dataset.id, item.id);
    await c.datasets.updateItem(dataset.id, item.id, { expected: { shipped: true } });
    const experiment = await c.experiments.create({ agentId: agent.id, datasetId: dataset.id, scorers: [{ type: 'contains', value: 'Echo' }], trials: 10, concurrency: 1 });
    await c.experiments.cancel(experiment.id);
    await c.experiments.list({ datasetId: dataset.id });
    assert.equal((await c.experiments.retrieve(experiment.id)).status, 'cancelled');
    await c.experiments.results(experiment.id, { limit: 10 });
    const rule = await c.evalRules.create(agent.id, { scorers: [{ type: 'exact_match' }], sampleRate: 0.5 });
    assert.equal((await c.evalRules.list(agent.id)).data[0]!.id, rule.id);
    await c.evalRules.update(agent.id, rule.id, { sampleRate: 0 });
    await c.evalRules.delete(agent.id, rule.id);
    await c.datasets.deleteItem(dataset.id, item.id);
    await c.datasets.delete(dataset.id);

    // Webhooks, their deliveries, events, and checking a delivery's signature.
    const hook = await c.webhooks.create({ url: receiver.url, events: ['agent.deleted'] });
    await c.webhooks.list();
    await c.webhooks.retrieve(hook.id);
    await c.webhooks.update(hook.id, { description: 'SDK' });
    const rotated = await c.webhooks.rotateSecret(hook.id);
    await c.webhooks.sendTest(hook.id);
    const [test] = await receiver.waitFor(1);
    const verified = await verifyWebhook(test!.body, test!.headers as Record<string, string>, rotated.secret);
    assert.equal(verified.type, 'webhook.test');
    assert.equal((await verifyWebhook(new TextEncoder().encode(test!.body), new Headers(test!.headers as Record<string, string>), rotated.secret)).id, verified.id);
    await assert.rejects(verifyWebhook(test!.body, test!.headers as Record<string, string>, 'whsec_'), WebhookVerificationError);
    await assert.rejects(verifyWebhook(test!.body.replace('webhook.test', 'webhook.tesT'), test!.headers as Record<string, string>, rotated.secret), WebhookVerificationError);
    await assert.rejects(verifyWebhook(test!.body, test!.headers as Record<string, string>, rotated.secret, { now: new Date(Date.now() + 600_000) }), WebhookVerificationError);
    const [delivery] = (await c.webhooks.listDeliveries(hook.id)).data;
    await c.webhooks.resendDelivery(hook.id, delivery!.id);
    await c.agents.delete(agent.id);
    const events = await c.events.list({ type: 'agent.deleted' });
    await c.events.retrieve(events.data[0]!.id);
    await c.webhooks.delete(hook.id);

    // Analytics and the audit log.
    const start = new Date(Date.now() - 3_600_000).toISOString();
    await c.analytics.executions({ start });
    await c.analytics.requests({ start });
    const audit = await c.auditEvents.list({ action: 'key.created' });
    assert.equal(audit.data[0]!.target.id, key.id);

    const called = new Set(sent.map((s) => operationOf(s.method, s.path)));
    const missing = Object.keys(OPERATIONS).filter((op) => !called.has(op));
    assert.deepEqual(missing, [], 'operations never called');
  });
});
