// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import type { AuditEventView } from '../../server/modules/audit/schemas';
import type { Member } from '../../server/modules/auth/members';
import { expectStatus } from '../expect';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// Members and roles (docs/teams.md): who may change whom, the last owner, removal ending access
// at once (the workspace's keys stay), switching workspaces, and the audit records of each.

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
});
after(() => api?.close());

async function member(ws: Workspace, role: MemberRole): Promise<Workspace> {
  const own = await api.seed.workspace();
  await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${ws.id}, ${own.userId}, ${role})`);
  expectOk(await dashboardCall(api, own, 'mutation', 'workspaces.switch', { workspaceId: ws.id }));
  return { ...own, id: ws.id };
}
function expectOk(res: TrpcResponse<unknown>) {
  assert.equal(res.status, 200, JSON.stringify(res.error));
}
function expectCode(res: TrpcResponse<unknown>, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.error ?? res.result));
  assert.equal(res.error!.data.apiError!.code, code);
}
const setRole = (as: Workspace, userId: string, role: MemberRole) => dashboardCall<Member>(api, as, 'mutation', 'members.updateRole', { userId, role });
const remove = (as: Workspace, userId: string) => dashboardCall(api, as, 'mutation', 'members.remove', { userId });
const roles = async (as: Workspace) => Object.fromEntries((await dashboardCall<Member[]>(api, as, 'query', 'members.list')).result!.map((m) => [m.userId, m.role]));

describe('changing roles', () => {
  it('admins change developers and viewers; only owners make, demote or remove owners', async () => {
    const ws = await api.seed.workspace();
    const admin = await member(ws, 'admin');
    const dev = await member(ws, 'developer');
    const list = (await dashboardCall<Member[]>(api, dev, 'query', 'members.list')).result!;
    assert.deepEqual(list.map((m) => m.role), ['owner', 'admin', 'developer'], 'every member sees the members');
    assert.equal(list[0]!.email, ws.email);
    expectOk(await setRole(admin, dev.userId, 'viewer'));
    expectCode(await setRole(admin, dev.userId, 'owner'), 403, 'insufficient_role');
    expectCode(await setRole(admin, ws.userId, 'admin'), 403, 'insufficient_role');
    expectCode(await remove(admin, ws.userId), 403, 'insufficient_role');
    expectCode(await setRole(dev, admin.userId, 'viewer'), 403, 'insufficient_role');
    expectOk(await setRole(ws, admin.userId, 'owner'));
    assert.deepEqual(await roles(ws), { [ws.userId]: 'owner', [admin.userId]: 'owner', [dev.userId]: 'viewer' });
    expectCode(await setRole(ws, 'usr_01JD8X3ZQ2N6W5V4T3S2R1P0MK', 'viewer'), 404, 'resource_not_found');
  });

  it('a workspace keeps an owner: the last one can neither step down nor leave', async () => {
    const ws = await api.seed.workspace();
    expectCode(await setRole(ws, ws.userId, 'admin'), 409, 'last_owner');
    expectCode(await remove(ws, ws.userId), 409, 'last_owner');
    assert.deepEqual(await roles(ws), { [ws.userId]: 'owner' });
  });

  it('two owners demoting each other at once: one wins, one owner is left', async () => {
    const ws = await api.seed.workspace();
    const other = await member(ws, 'owner');
    const results = await Promise.all([setRole(ws, other.userId, 'admin'), setRole(other, ws.userId, 'admin')]);
    // The loser is refused as the last owner (they raced under the members' lock), or as an admin
    // already (its role was read after the winner's commit).
    const outcomes = results.map((r) => (r.status === 200 ? 'ok' : r.error!.data.apiError!.code)).sort();
    assert.equal(outcomes[1], 'ok', JSON.stringify(outcomes));
    assert.ok(['insufficient_role', 'last_owner'].includes(outcomes[0]!), JSON.stringify(outcomes));
    const owners = Object.values(await roles(ws)).filter((r) => r === 'owner');
    assert.equal(owners.length, 1);
  });
});

describe('removing a member', () => {
  it('ends their access to the workspace with their next request; the keys they made stay', async () => {
    const ws = await api.seed.workspace();
    const dev = await member(ws, 'developer');
    const agent = await dashboardCall<{ id: string }>(api, ws, 'mutation', 'agents.create', { name: 'team agent' }, { environment: 'test' });
    const key = await dashboardCall<{ id: string; key: string }>(api, dev, 'mutation', 'keys.create', { name: 'dev key', environment: 'test', scopes: ['agents:read'] }, { environment: 'test' });
    expectOk(key);
    const seen = await dashboardCall<{ data: { id: string }[] }>(api, dev, 'query', 'agents.list', {}, { environment: 'test' });
    assert.ok(seen.result!.data.some((a) => a.id === agent.result!.id));
    expectOk(await remove(ws, dev.userId));
    // Their next request shows their own workspace, not the team's.
    const after = await dashboardCall<{ data: { id: string }[] }>(api, dev, 'query', 'agents.list', {}, { environment: 'test' });
    expectOk(after);
    assert.ok(!after.result!.data.some((a) => a.id === agent.result!.id));
    expectCode(await dashboardCall(api, dev, 'mutation', 'agents.delete', { id: agent.result!.id }, { environment: 'test' }), 404, 'resource_not_found');
    expectStatus(await api.request('GET', '/v1/agents', { key: key.result!.key }), 200);
  });

  it('anyone may leave; a developer may not remove others', async () => {
    const ws = await api.seed.workspace();
    const dev = await member(ws, 'developer');
    const viewer = await member(ws, 'viewer');
    expectCode(await remove(dev, viewer.userId), 403, 'insufficient_role');
    expectOk(await remove(viewer, viewer.userId));
    assert.deepEqual(await roles(ws), { [ws.userId]: 'owner', [dev.userId]: 'developer' });
  });
});

describe('workspaces', () => {
  it('a member of several switches between them, and the choice is kept; never into one they are not in', async () => {
    const team = await api.seed.workspace();
    const dev = await member(team, 'developer');
    const list = await dashboardCall<{ id: string; role: string; current: boolean }[]>(api, dev, 'query', 'workspaces.list');
    assert.deepEqual(list.result!.map((w) => [w.role, w.current]).sort(), [['developer', true], ['owner', false]]);
    const own = list.result!.find((w) => w.role === 'owner')!.id;
    expectOk(await dashboardCall(api, dev, 'mutation', 'workspaces.switch', { workspaceId: own }));
    const me = await dashboardCall<{ role: string; workspace: { id: string } }>(api, dev, 'query', 'account.me');
    assert.deepEqual([me.result!.role, me.result!.workspace.id], ['owner', own]);
    const stranger = await api.seed.workspace();
    expectCode(await dashboardCall(api, dev, 'mutation', 'workspaces.switch', { workspaceId: stranger.id }), 404, 'resource_not_found');
  });
});

describe('audit records', () => {
  it('role changes and removals are recorded workspace-wide, with who did them', async () => {
    const ws = await api.seed.workspace();
    const dev = await member(ws, 'developer');
    const viewer = await member(ws, 'viewer');
    expectOk(await setRole(ws, dev.userId, 'admin'));
    expectOk(await remove(ws, viewer.userId));
    const list = await dashboardCall<{ data: AuditEventView[] }>(api, ws, 'query', 'audit.list', { action: 'member.role_changed' }, { environment: 'live' });
    assert.equal(list.result!.data.length, 1);
    const [changed] = list.result!.data;
    assert.deepEqual(changed!.actor, { type: 'user', id: ws.userId, email: ws.email });
    assert.deepEqual(changed!.target, { type: 'user', id: dev.userId });
    assert.deepEqual(changed!.changes, { role: ['developer', 'admin'] });
    assert.equal(changed!.environment, null);
    const removed = await dashboardCall<{ data: AuditEventView[] }>(api, ws, 'query', 'audit.list', { action: 'member.removed' }, { environment: 'test' });
    assert.deepEqual(removed.result!.data[0]!.changes, { role: ['viewer', null] });
  });
});
