// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import { after, before } from 'node:test';
import { expectStatus } from '../expect';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';

// The agent routes refuse what docs/api.md ("Errors", "Keys and scopes") says they must: no key, a
// malformed, revoked or expired key, the wrong scope, another workspace's or environment's agent
// (404, untouched).

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

async function agentOf(owner: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: owner.workspace, environment: owner.environment });
  const res = await api.request<{ id: string }>('POST', '/v1/agents', { key: admin.key, body: { name: 'secured' } });
  expectStatus(res, 201);
  return res.body.id;
}

securitySuite(() => api, { method: 'POST', path: '/v1/agents', scope: 'agents:write', successStatus: 201, body: () => ({ name: 'new' }) });
securitySuite(() => api, {
  method: 'GET',
  path: '/v1/agents',
  scope: 'agents:read',
  successStatus: 200,
  create: (_api, owner) => agentOf(owner),
  listIds: (body) => (body as { data: { id: string }[] }).data.map((a) => a.id),
});
securitySuite(() => api, { method: 'GET', path: '/v1/agents/{id}', scope: 'agents:read', successStatus: 200, create: (_api, owner) => agentOf(owner) });
securitySuite(() => api, {
  method: 'PATCH',
  path: '/v1/agents/{id}',
  scope: 'agents:write',
  successStatus: 200,
  body: () => ({ description: 'patched' }),
  create: (_api, owner) => agentOf(owner),
});
securitySuite(() => api, { method: 'DELETE', path: '/v1/agents/{id}', scope: 'agents:write', successStatus: 200, create: (_api, owner) => agentOf(owner) });
securitySuite(() => api, {
  method: 'POST',
  path: '/v1/agents/{id}/rotate-tool-secret',
  scope: 'agents:write',
  successStatus: 200,
  create: (_api, owner) => agentOf(owner),
});
