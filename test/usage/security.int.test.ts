import { after, before } from 'node:test';
import { expectStatus } from '../expect';
import { createAgent, execute } from '../executions/helpers';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { dayStart } from './helpers';

// Both analytics routes refuse what every route must (no key, a malformed, revoked or expired
// key, a key without `analytics:read`), and neither shows another workspace's or environment's
// usage: an agent (or key) with activity elsewhere never appears in the caller's groups.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

const helperKey = (owner: SeededKey) => api.seed.key({ workspace: owner.workspace, environment: owner.environment });
type Grouped = { data: { results: Record<string, string>[] }[] };
const groupsOf = (field: string) => (body: unknown) => (body as Grouped).data.flatMap((b) => b.results.map((r) => r[field]!));

securitySuite(() => api, {
  method: 'GET',
  path: `/v1/analytics/executions?start=${dayStart(1)}&groupBy=agentId`,
  scope: 'analytics:read',
  successStatus: 200,
  // Activity of the owner's workspace: an agent that ran once.
  create: async (_api, owner) => {
    const admin = await helperKey(owner);
    const agentId = await createAgent(api, admin.key);
    expectStatus(await execute(api, admin.key, agentId, { input: 'hello', wait: true }), 200);
    return agentId;
  },
  listIds: groupsOf('agentId'),
});

securitySuite(() => api, {
  method: 'GET',
  path: `/v1/analytics/requests?start=${dayStart(1)}&groupBy=keyId`,
  scope: 'analytics:read',
  successStatus: 200,
  // Activity of the owner's workspace: a key that made a request (flushed at once here).
  create: async (_api, owner) => {
    const admin = await helperKey(owner);
    expectStatus(await api.request('GET', '/v1/agents', { key: admin.key }), 200);
    const { getRuntime } = await import('../../server/modules/runtime');
    await getRuntime().usage.flush();
    return admin.id;
  },
  listIds: groupsOf('keyId'),
});
