// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import { expectError, expectStatus } from '../expect';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// Roles (docs/teams.md), checked on the server for every dashboard procedure: each role on each
// kind of action, allowed and refused, on the dashboard face and on the REST face through the keys
// a member of that role can make. A refused request changes nothing, whatever the page offered.

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions(), env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
after(() => api?.close());

/** A user of their own who is a member of `ws` with `role`, shown `ws` in the dashboard (the switcher's choice). */
async function member(ws: Workspace, role: MemberRole): Promise<Workspace> {
  const own = await api.seed.workspace();
  await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${ws.id}, ${own.userId}, ${role})`);
  const as = { ...own, id: ws.id };
  const switched = await dashboardCall(api, own, 'mutation', 'workspaces.switch', { workspaceId: ws.id });
  assert.equal(switched.status, 200, JSON.stringify(switched.error));
  return as;
}

const ok = (res: TrpcResponse<unknown>) => assert.equal(res.status, 200, JSON.stringify(res.error));
const refused = (res: TrpcResponse<unknown>) => {
  assert.equal(res.status, 403, JSON.stringify(res.error ?? res.result));
  assert.equal(res.error!.data.apiError!.code, 'insufficient_role');
};

type Kind = 'read agents' | 'change agents' | 'read webhooks' | 'change webhooks' | 'read keys' | 'change budgets' | 'read budgets' | 'read the audit log' | 'change datasets' | 'read datasets';
const EXPECTED: Record<MemberRole, Kind[]> = {
  owner: ['read agents', 'change agents', 'read webhooks', 'change webhooks', 'read keys', 'change budgets', 'read budgets', 'read the audit log', 'change datasets', 'read datasets'],
  admin: ['read agents', 'change agents', 'read webhooks', 'change webhooks', 'read keys', 'change budgets', 'read budgets', 'read the audit log', 'change datasets', 'read datasets'],
  developer: ['read agents', 'change agents', 'read webhooks', 'read keys', 'read budgets', 'change datasets', 'read datasets'],
  viewer: ['read agents', 'read webhooks', 'read budgets', 'read datasets'],
};

describe('each role on each kind of action (dashboard)', () => {
  let ws: Workspace;
  before(async () => {
    ws = await api.seed.workspace();
  });

  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
    it(`${role}: allowed ${EXPECTED[role].join(', ')}; refused the rest, changing nothing`, async () => {
      const as = role === 'owner' ? ws : await member(ws, role);
      const env = { environment: 'test' as const };
      const calls: Record<Kind, () => Promise<TrpcResponse<unknown>>> = {
        'read agents': () => dashboardCall(api, as, 'query', 'agents.list', {}, env),
        'change agents': () => dashboardCall(api, as, 'mutation', 'agents.create', { name: `by ${role}` }, env),
        'read webhooks': () => dashboardCall(api, as, 'query', 'webhooks.list', {}, env),
        'change webhooks': () => dashboardCall(api, as, 'mutation', 'webhooks.create', { url: 'https://93.184.215.14/hook', events: ['agent.created'] }, env),
        'read keys': () => dashboardCall(api, as, 'query', 'keys.list', {}, env),
        'change budgets': () => dashboardCall(api, as, 'mutation', 'budgets.create', { name: 'cap', target: { type: 'workspace' }, limit: { tokens: 10 }, period: 'day', action: 'notify' }, env),
        'read budgets': () => dashboardCall(api, as, 'query', 'budgets.list', {}, env),
        'read the audit log': () => dashboardCall(api, as, 'query', 'audit.list', {}, env),
        // Evals (docs/evals.md): developers run them; viewers read them.
        'change datasets': () => dashboardCall(api, as, 'mutation', 'datasets.create', { name: `by ${role}` }, env),
        'read datasets': () => dashboardCall(api, as, 'query', 'datasets.list', {}, env),
      };
      const before = await api.query<{ n: number }>(sql`select (select count(*) from agents where workspace_id = ${ws.id}) + (select count(*) from webhooks where workspace_id = ${ws.id}) + (select count(*) from budgets where workspace_id = ${ws.id}) + (select count(*) from datasets where workspace_id = ${ws.id}) as n`);
      let changes = 0;
      for (const [kind, call] of Object.entries(calls) as [Kind, () => Promise<TrpcResponse<unknown>>][]) {
        const res = await call();
        if (EXPECTED[role].includes(kind)) {
          ok(res);
          if (kind.startsWith('change')) changes++;
        } else refused(res);
      }
      const after = await api.query<{ n: number }>(
        sql`select (select count(*) from agents where workspace_id = ${ws.id}) + (select count(*) from webhooks where workspace_id = ${ws.id}) + (select count(*) from budgets where workspace_id = ${ws.id}) + (select count(*) from datasets where workspace_id = ${ws.id}) as n`,
      );
      assert.equal(Number(after[0]!.n) - Number(before[0]!.n), changes, 'a refused request wrote nothing');
    });
  }

  it('a viewer replaying an owner’s requests gets nothing done: executing, deleting an agent, revoking a key', async () => {
    const viewer = await member(ws, 'viewer');
    const agent = await dashboardCall<{ id: string }>(api, ws, 'mutation', 'agents.create', { name: 'kept' }, { environment: 'test' });
    const key = await dashboardCall<{ id: string }>(api, ws, 'mutation', 'keys.create', { name: 'kept', environment: 'test' }, { environment: 'test' });
    refused(await dashboardCall(api, viewer, 'mutation', 'executions.execute', { id: agent.result!.id, input: 'hello', wait: true }, { environment: 'test' }));
    refused(await dashboardCall(api, viewer, 'mutation', 'agents.delete', { id: agent.result!.id }, { environment: 'test' }));
    refused(await dashboardCall(api, viewer, 'mutation', 'keys.revoke', { id: key.result!.id }, { environment: 'test' }));
    ok(await dashboardCall(api, ws, 'query', 'agents.get', { id: agent.result!.id }, { environment: 'test' }));
    const [row] = await api.query<{ revoked_at: string | null }>(sql`select revoked_at from api_keys where id = ${key.result!.id}`);
    assert.equal(row!.revoked_at, null);
    const [runs] = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where agent_id = ${agent.result!.id}`);
    assert.equal(runs!.n, 0);
  });
});

describe('keys a member makes (the REST face)', () => {
  it('never hold a scope the maker’s role could not grant; a developer revokes only such keys', async () => {
    const ws = await api.seed.workspace();
    const dev = await member(ws, 'developer');
    const viewer = await member(ws, 'viewer');
    const env = { environment: 'test' as const };
    const made = await dashboardCall<{ id: string; key: string; createdBy: unknown }>(api, dev, 'mutation', 'keys.create', { name: 'dev key', environment: 'test', scopes: ['agents:read', 'agents:write', 'analytics:read'] }, env);
    ok(made);
    assert.deepEqual(made.result!.createdBy, { type: 'user', id: dev.userId }, 'keys show who made them');
    // evals:manage is a developer's to grant (docs/teams.md).
    const evals = await dashboardCall<{ key: string }>(api, dev, 'mutation', 'keys.create', { name: 'evals', environment: 'test', scopes: ['agents:read', 'evals:manage'] }, env);
    ok(evals);
    expectStatus(await api.request('POST', '/v1/datasets', { key: evals.result!.key, body: { name: 'by a developer key' } }), 201);
    for (const scopes of [['keys:manage'], ['webhooks:manage'], ['agents:read', 'budgets:manage'], ['audit:read']]) {
      const res = await dashboardCall(api, dev, 'mutation', 'keys.create', { name: 'greedy', environment: 'test', scopes }, env);
      refused(res);
      assert.match(res.error!.message, /developer/);
    }
    refused(await dashboardCall(api, viewer, 'mutation', 'keys.create', { name: 'viewer key', environment: 'test', scopes: ['agents:read'] }, env));
    // The developer's key works within its scopes on /v1, and nowhere beyond.
    expectStatus(await api.request('POST', '/v1/agents', { key: made.result!.key, body: { name: 'over REST' } }), 201);
    expectError(await api.request('GET', '/v1/webhooks', { key: made.result!.key }), 403, 'insufficient_scope');
    // An owner's key with keys:manage: the developer may not revoke it; their own they may.
    const owners = await dashboardCall<{ id: string }>(api, ws, 'mutation', 'keys.create', { name: 'owner key', environment: 'test', scopes: ['keys:manage', 'agents:read'] }, env);
    refused(await dashboardCall(api, dev, 'mutation', 'keys.revoke', { id: owners.result!.id }, env));
    ok(await dashboardCall(api, dev, 'mutation', 'keys.revoke', { id: made.result!.id }, env));
    expectError(await api.request('GET', '/v1/agents', { key: made.result!.key }), 401, 'api_key_revoked');
  });
});
