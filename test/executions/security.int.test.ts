// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import { after, before } from 'node:test';
import { expectStatus } from '../expect';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { createAgent, execute } from './helpers';

// Every execution and conversation route refuses what docs/api.md ("Errors", "Keys and scopes")
// says it must: no key, a malformed, revoked or expired key, the wrong scope, and another
// workspace's or environment's resource (404, never 403, and untouched).

let api: TestServer;
before(async () => {
  api = await startServer();
});
// The slow runs the cancel suite starts (one per case, cancelled only by the allowed one): cancelled
// before the server closes, which would otherwise wait ~40 s for them to finish.
const slowRuns: { id: string; key: string }[] = [];
after(async () => {
  await Promise.all(slowRuns.map((r) => api?.request('POST', `/v1/executions/${r.id}/cancel`, { key: r.key })));
  await api?.close();
});

/** A helper key of the owner's workspace and environment holding every scope (the owner may hold only one). */
const helperKey = (owner: SeededKey) => api.seed.key({ workspace: owner.workspace, environment: owner.environment });

async function finishedExecution(owner: SeededKey): Promise<{ id: string; conversationId: string }> {
  const admin = await helperKey(owner);
  const agentId = await createAgent(api, admin.key);
  const res = await execute(api, admin.key, agentId, { input: 'hello', wait: true });
  expectStatus(res, 200);
  return res.body;
}

const LONG = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/agents/{id}/execute',
  scope: 'agents:execute',
  successStatus: 202,
  body: () => ({ input: 'hi' }),
  create: async (_api, owner) => createAgent(api, (await helperKey(owner)).key),
});

securitySuite(() => api, {
  method: 'GET',
  path: '/v1/executions',
  scope: 'agents:read',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).id,
  listIds: (body) => (body as { data: { id: string }[] }).data.map((e) => e.id),
});

securitySuite(() => api, {
  method: 'GET',
  path: '/v1/executions/{id}',
  scope: 'agents:read',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).id,
});

securitySuite(() => api, {
  method: 'GET',
  path: '/v1/executions/{id}/trace',
  scope: 'agents:read',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).id,
});

securitySuite(() => api, {
  method: 'GET',
  path: '/v1/executions/{id}/stream',
  scope: 'agents:execute',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).id,
});

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/executions/{id}/cancel',
  scope: 'agents:execute',
  successStatus: 200,
  create: async (_api, owner) => {
    const admin = await helperKey(owner);
    const agentId = await createAgent(api, admin.key, { model: 'sandbox/slow' });
    const res = await execute(api, admin.key, agentId, { input: LONG });
    expectStatus(res, 202);
    slowRuns.push({ id: res.body.id, key: admin.key });
    return res.body.id;
  },
});

/**
 * A run paused on a call awaiting approval. The sandbox's call id is a hash of the prompt, so
 * every such run (same instructions, same input) awaits the same `toolCallId`: one body fits all.
 */
async function pausedExecution(owner: SeededKey): Promise<{ id: string; callId: string }> {
  const admin = await helperKey(owner);
  const refund = { type: 'http', name: 'refund', description: 'Refunds', url: 'https://93.184.215.14/tool', parameters: { type: 'object' }, approval: 'always' };
  const agentId = await createAgent(api, admin.key, { tools: [refund] });
  const res = await execute(api, admin.key, agentId, { input: 'please refund order 7', wait: true });
  expectStatus(res, 200);
  return { id: res.body.id, callId: res.body.requiredAction!.toolCalls[0]!.id };
}

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/executions/{id}/approvals',
  scope: 'agents:execute',
  successStatus: 200,
  bodyFor: async (_api, owner) => ({ decisions: [{ toolCallId: (await pausedExecution(owner)).callId, approve: false, reason: 'security suite' }] }),
  create: async (_api, owner) => (await pausedExecution(owner)).id,
});

securitySuite(() => api, {
  method: 'POST',
  path: '/v1/executions/{id}/replay',
  scope: 'agents:execute',
  successStatus: 202,
  body: () => ({ fromStep: 0 }),
  create: async (_api, owner) => (await finishedExecution(owner)).id,
});

securitySuite(() => api, {
  method: 'GET',
  path: '/v1/conversations',
  scope: 'agents:execute',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).conversationId,
  listIds: (body) => (body as { data: { id: string }[] }).data.map((c) => c.id),
});

securitySuite(() => api, {
  method: 'GET',
  path: '/v1/conversations/{id}',
  scope: 'agents:execute',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).conversationId,
});

securitySuite(() => api, {
  method: 'DELETE',
  path: '/v1/conversations/{id}',
  scope: 'agents:execute',
  successStatus: 200,
  create: async (_api, owner) => (await finishedExecution(owner)).conversationId,
});
