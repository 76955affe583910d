// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// Team changes count against the workspace's plan like every dashboard change (docs/teams.md,
// docs/security.md "The dashboard's mutations are rate limited like REST"). Reported (issue 43,
// item 4): members.updateRole, members.remove, invitations.revoke and workspaces.switch skipped
// the limit — 140 role changes in a minute on a plan allowing 60, each an audit record, enough to
// push the rest out of a 10,000-record export. Past the limit: 429, nothing written or recorded.

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
});
after(() => api?.close());

async function member(ws: Workspace, role: MemberRole): Promise<Workspace> {
  const own = await api.seed.workspace();
  await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${ws.id}, ${own.userId}, ${role})`);
  await api.query(sql`update users set current_workspace_id = ${ws.id} where id = ${own.userId}`);
  return { ...own, id: ws.id };
}
const ok = <T>(res: TrpcResponse<T>): T => {
  assert.equal(res.status, 200, JSON.stringify(res.error));
  return res.result as T;
};
function limited(res: TrpcResponse<unknown>) {
  assert.equal(res.status, 429, JSON.stringify(res.error ?? res.result));
  assert.equal(res.error!.data.apiError!.code, 'rate_limit_exceeded');
  assert.ok(Number(res.headers.get('retry-after')) > 0, 'says when to try again');
}
const records = async (ws: Workspace, action: string) =>
  (await api.query<{ n: number }>(sql`select count(*)::int as n from audit_events where workspace_id = ${ws.id} and action = ${action}`))[0]!.n;
/** Uses up the workspace's minute with changes that write nothing (a role set to what it is). */
async function useUp(ws: Workspace, times: number) {
  for (let i = 0; i < times; i++) ok(await dashboardCall(api, ws, 'mutation', 'members.updateRole', { userId: ws.userId, role: 'owner' }));
}

describe('team changes under the plan’s limit', () => {
  it('as reported: 140 role changes in a minute on the starter plan (60) — 60 made and recorded, the rest 429', async () => {
    const ws = await api.seed.workspace();
    const dev = await member(ws, 'developer');
    const outcomes: number[] = [];
    for (let i = 0; i < 140; i++) {
      const res = await dashboardCall(api, ws, 'mutation', 'members.updateRole', { userId: dev.userId, role: i % 2 === 0 ? 'viewer' : 'developer' });
      outcomes.push(res.status);
      if (res.status !== 200) limited(res);
    }
    assert.equal(outcomes.filter((s) => s === 200).length, 60, 'the plan’s 60 a minute');
    assert.equal(outcomes.indexOf(429), 60, 'refused from the 61st on');
    assert.equal(await records(ws, 'member.role_changed'), 60, 'a refused change records nothing');
  });

  it('removing a member past the limit: 429, they stay, nothing recorded', async () => {
    const ws = await api.seed.workspace({ plan: 'enterprise', customRpm: 2 });
    const viewer = await member(ws, 'viewer');
    await useUp(ws, 2);
    limited(await dashboardCall(api, ws, 'mutation', 'members.remove', { userId: viewer.userId }));
    const [row] = await api.query<{ role: string }>(sql`select role from workspace_members where workspace_id = ${ws.id} and user_id = ${viewer.userId}`);
    assert.equal(row?.role, 'viewer');
    assert.equal(await records(ws, 'member.removed'), 0);
  });

  it('revoking an invitation past the limit: 429, it stays pending', async () => {
    const ws = await api.seed.workspace({ plan: 'enterprise', customRpm: 2 });
    const made = ok(await dashboardCall<{ id: string }>(api, ws, 'mutation', 'invitations.create', { email: `limited-${Date.now()}@example.test`, role: 'viewer' }));
    await useUp(ws, 1);
    limited(await dashboardCall(api, ws, 'mutation', 'invitations.revoke', { id: made.id }));
    const pending = ok(await dashboardCall<{ id: string }[]>(api, ws, 'query', 'invitations.list'));
    assert.deepEqual(pending.map((p) => p.id), [made.id]);
    assert.equal(await records(ws, 'invitation.revoked'), 0);
  });

  it('switching workspaces past the limit: 429, the dashboard still shows the same one', async () => {
    const team = await api.seed.workspace({ plan: 'enterprise', customRpm: 2 });
    const dev = await member(team, 'developer');
    const own = (await api.query<{ workspace_id: string }>(sql`select workspace_id from workspace_members where user_id = ${dev.userId} and role = 'owner'`))[0]!.workspace_id;
    // Charged to the workspace shown when asked (the team's): two switches use up its minute.
    ok(await dashboardCall(api, dev, 'mutation', 'workspaces.switch', { workspaceId: team.id }));
    ok(await dashboardCall(api, dev, 'mutation', 'workspaces.switch', { workspaceId: team.id }));
    limited(await dashboardCall(api, dev, 'mutation', 'workspaces.switch', { workspaceId: own }));
    const me = ok(await dashboardCall<{ workspace: { id: string } }>(api, dev, 'query', 'account.me'));
    assert.equal(me.workspace.id, team.id);
  });
});
