// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dashboardCall, testSessions } from '../dashboard';
import { expectError, expectStatus } from '../expect';
import { createAgent, execute } from '../executions/helpers';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { dayStart } from './helpers';

// Both analytics routes refuse what every route must (no key, a malformed, revoked or expired
// key, a key without `analytics:read`), and neither shows another workspace's or environment's
// usage: an agent (or key) with activity elsewhere never appears in the caller's groups. What an
// attacker sent (docs/security.md): an `end` past year 9999 was a 500, and `limit` took `1e2`,
// `0x10` and an empty value.

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
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
    await api.runtime.usage.flush();
    return admin.id;
  },
  listIds: groupsOf('keyId'),
});

describe('dates and limits an attacker sends', () => {
  const query = (q: Record<string, string>) => new URLSearchParams(q).toString();
  for (const series of ['executions', 'requests']) {
    for (const granularity of ['day', 'hour']) {
      it(`${series} by ${granularity}: an end past 9999-12-31T00:00:00Z is 400 invalid_parameter on end, not a 500`, async () => {
        const k = await api.seed.key({ scopes: ['analytics:read'] });
        for (const end of ['9999-12-31T00:00:01Z', '9999-12-31T23:59:59Z', '9999-12-31T23:30:00-05:00']) {
          const res = await api.request('GET', `/v1/analytics/${series}?${query({ start: dayStart(1), end, granularity })}`, { key: k.key });
          const err = expectError(res, 400, 'invalid_parameter', 'end');
          assert.match(err.message, /9999-12-31T00:00:00\.000Z/);
        }
        // The latest end there is still answers.
        const res = await api.request('GET', `/v1/analytics/${series}?${query({ start: dayStart(1), end: '9999-12-31T00:00:00Z', granularity })}`, { key: k.key });
        expectStatus(res, 200);
      });
    }
  }

  it('analytics.byGroup (the dashboard): the same end is invalid_parameter on end', async () => {
    const k = await api.seed.key({ scopes: ['analytics:read'] });
    for (const series of ['executions', 'requests']) {
      const groupBy = series === 'executions' ? 'agentId' : 'keyId';
      const res = await dashboardCall(api, k.workspace, 'query', 'analytics.byGroup', { series, start: dayStart(1), end: '9999-12-31T00:00:01Z', groupBy }, { environment: k.environment });
      assert.equal(res.error?.data.apiError?.code, 'invalid_parameter', JSON.stringify(res));
      assert.equal(res.error?.data.apiError?.param, 'end');
    }
  });

  for (const limit of ['1e2', '0x10', '', ' 7', '7 ', '+7', '1.0', '7.5', '-1', '0', '367', 'Infinity', '007x']) {
    it(`limit=${JSON.stringify(limit)} is 400 invalid_parameter on limit`, async () => {
      const k = await api.seed.key({ scopes: ['analytics:read'] });
      for (const series of ['executions', 'requests']) {
        const res = await api.request('GET', `/v1/analytics/${series}?start=${encodeURIComponent(dayStart(1))}&limit=${encodeURIComponent(limit)}`, { key: k.key });
        expectError(res, 400, 'invalid_parameter', 'limit');
      }
    });
  }

  it('limit=7 (and 07) is seven buckets', async () => {
    const k = await api.seed.key({ scopes: ['analytics:read'] });
    for (const limit of ['7', '07']) {
      const res = await api.request<{ data: unknown[] }>('GET', `/v1/analytics/executions?start=${encodeURIComponent(dayStart(10))}&limit=${limit}`, { key: k.key });
      expectStatus(res, 200);
      assert.equal(res.body.data.length, 7);
    }
  });
});
