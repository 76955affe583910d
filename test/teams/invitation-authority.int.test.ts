// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// An invitation does not outlive its sender's authority (docs/teams.md, "Invitations"). Reported
// (issue 43, item 3): an admin invites an address as `admin`; the owner removes that admin; the
// address accepts and is an admin. Now removing or demoting a member (or their leaving) revokes
// the invitations they sent, and accepting re-checks that the inviter, still a member, could
// grant the role — for invitations left pending from before, and under any race.

let api: TestServer;
let createUser: typeof import('../../server/modules/auth/users').createUser;
let invite: typeof import('../../server/modules/auth/invitations').invite;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
  ({ createUser } = await import('../../server/modules/auth/users'));
  ({ invite } = await import('../../server/modules/auth/invitations'));
});
after(() => api?.close());

type Made = { id: string; token: string };
const address = () => `authority-${randomBytes(4).toString('hex')}@example.test`;
async function user(email = address()): Promise<Workspace> {
  const m = await createUser(api.db, { email });
  return { id: m.workspaceId, userId: m.userId, email };
}
/** A member of `ws` with `role`, their dashboard showing it. */
async function member(ws: Workspace, role: MemberRole): Promise<Workspace> {
  const own = await user();
  await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${ws.id}, ${own.userId}, ${role})`);
  await api.query(sql`update users set current_workspace_id = ${ws.id} where id = ${own.userId}`);
  return { ...own, id: ws.id };
}
const ok = <T>(res: TrpcResponse<T>): T => {
  assert.equal(res.status, 200, JSON.stringify(res.error));
  return res.result as T;
};
function invalid(res: TrpcResponse<unknown>) {
  assert.equal(res.status, 404, JSON.stringify(res.error ?? res.result));
  assert.equal(res.error!.data.apiError!.code, 'invitation_invalid');
}
const inviteAs = async (as: Workspace, email: string, role: MemberRole) => ok(await dashboardCall<Made>(api, as, 'mutation', 'invitations.create', { email, role }));
const accept = (as: Workspace, token: string) => dashboardCall<{ workspaceId: string; role: string }>(api, as, 'mutation', 'invitations.accept', { token });
const peek = (as: Workspace, token: string) => dashboardCall<unknown>(api, as, 'query', 'invitations.peek', { token });
const pending = async (ws: Workspace) => ok(await dashboardCall<{ id: string }[]>(api, ws, 'query', 'invitations.list')).map((p) => p.id);
const roleIn = async (ws: Workspace, userId: string) =>
  (await api.query<{ role: string }>(sql`select role from workspace_members where workspace_id = ${ws.id} and user_id = ${userId}`))[0]?.role ?? null;

describe('removing or demoting a member revokes the invitations they sent', () => {
  it('as reported: an admin invites an admin and is removed; the address cannot accept', async () => {
    const team = await user();
    const admin = await member(team, 'admin');
    const email = address();
    const made = await inviteAs(admin, email, 'admin');
    ok(await dashboardCall(api, team, 'mutation', 'members.remove', { userId: admin.userId }));
    assert.deepEqual(await pending(team), [], 'no longer pending');
    const invitee = await user(email);
    assert.equal(ok(await peek(invitee, made.token)), null);
    invalid(await accept(invitee, made.token));
    assert.equal(await roleIn(team, invitee.userId), null, 'not a member');
    // Recorded as revoked by the owner who removed the admin, saying why.
    const [record] = await api.query<{ actor_id: string; changes: unknown }>(
      sql`select actor_id, changes from audit_events where action = 'invitation.revoked' and target_id = ${made.id}`,
    );
    assert.equal(record?.actor_id, team.userId);
    assert.deepEqual(record?.changes, { email: [email, null], role: ['admin', null], reason: [null, 'inviter_removed'] });
  });

  it('demoting an admin revokes every invitation they sent; the owner’s and other admins’ stay', async () => {
    const team = await user();
    const admin = await member(team, 'admin');
    const other = await member(team, 'admin');
    const theirs = [await inviteAs(admin, address(), 'developer'), await inviteAs(admin, address(), 'viewer')];
    const kept = [await inviteAs(team, address(), 'admin'), await inviteAs(other, address(), 'viewer')];
    ok(await dashboardCall(api, team, 'mutation', 'members.updateRole', { userId: admin.userId, role: 'developer' }));
    assert.deepEqual((await pending(team)).sort(), kept.map((m) => m.id).sort());
    const reasons = await api.query<{ reason: unknown }>(
      sql`select changes->'reason' as reason from audit_events where action = 'invitation.revoked' and target_id in (${theirs[0]!.id}, ${theirs[1]!.id})`,
    );
    assert.deepEqual(reasons.map((r) => r.reason), [[null, 'inviter_demoted'], [null, 'inviter_demoted']]);
  });

  it('an owner made an admin loses the invitations they sent, an admin made an owner keeps them', async () => {
    const team = await user();
    const second = await member(team, 'owner');
    const admin = await member(team, 'admin');
    const byOwner = await inviteAs(second, address(), 'owner');
    const byAdmin = await inviteAs(admin, address(), 'developer');
    ok(await dashboardCall(api, team, 'mutation', 'members.updateRole', { userId: second.userId, role: 'admin' }));
    ok(await dashboardCall(api, team, 'mutation', 'members.updateRole', { userId: admin.userId, role: 'owner' }));
    assert.deepEqual(await pending(team), [byAdmin.id]);
    assert.ok(byOwner.id);
  });

  it('a member who leaves takes their invitations with them; the admin CLI’s stay', async () => {
    const team = await user();
    const admin = await member(team, 'admin');
    const theirs = await inviteAs(admin, address(), 'viewer');
    const cli = await invite(api.db, { kind: 'system', workspaceId: team.id }, { email: address(), role: 'admin' });
    ok(await dashboardCall(api, admin, 'mutation', 'members.remove', { userId: admin.userId }));
    assert.deepEqual(await pending(team), [cli.id]);
    assert.ok(theirs.id);
  });
});

describe('accepting re-checks that the inviter could still grant the role', () => {
  // Invitations left pending by an older version, whose inviter lost the role meanwhile: the
  // membership is changed in the database directly, which revokes nothing.
  it('an inviter no longer a member, or no longer allowed to grant the role: the link is invalid', async () => {
    const team = await user();
    const gone = await member(team, 'admin');
    const demoted = await member(team, 'admin');
    const formerOwner = await member(team, 'owner');
    const cases = [
      { by: gone, role: 'admin' as const, then: sql`delete from workspace_members where workspace_id = ${team.id} and user_id = ${gone.userId}` },
      { by: demoted, role: 'viewer' as const, then: sql`update workspace_members set role = 'developer' where workspace_id = ${team.id} and user_id = ${demoted.userId}` },
      { by: formerOwner, role: 'owner' as const, then: sql`update workspace_members set role = 'admin' where workspace_id = ${team.id} and user_id = ${formerOwner.userId}` },
    ];
    for (const c of cases) {
      const email = address();
      const made = await inviteAs(c.by, email, c.role);
      await api.query(c.then);
      const invitee = await user(email);
      assert.equal(ok(await peek(invitee, made.token)), null, `${c.role} by a former ${c.by === gone ? 'member' : 'grantor'}: the page offers nothing`);
      invalid(await accept(invitee, made.token));
      assert.equal(await roleIn(team, invitee.userId), null);
    }
    // The former owner, an admin now, still grants what an admin grants.
    const email = address();
    const made = await inviteAs(formerOwner, email, 'developer');
    assert.deepEqual(ok(await accept(await user(email), made.token)), { workspaceId: team.id, role: 'developer' });
  });

  it('a removal and an accept at once: the invitee is an admin only if the accept came first', async () => {
    for (let i = 0; i < 5; i++) {
      const team = await user();
      const admin = await member(team, 'admin');
      const email = address();
      const made = await inviteAs(admin, email, 'admin');
      const invitee = await user(email);
      const [removed, accepted] = await Promise.all([dashboardCall(api, team, 'mutation', 'members.remove', { userId: admin.userId }), accept(invitee, made.token)]);
      ok(removed);
      const [row] = await api.query<{ accepted: boolean; revoked: boolean }>(
        sql`select accepted_at is not null as accepted, revoked_at is not null as revoked from invitations where id = ${made.id}`,
      );
      if (accepted.status === 200) {
        assert.deepEqual([row, await roleIn(team, invitee.userId)], [{ accepted: true, revoked: false }, 'admin']);
      } else {
        invalid(accepted);
        assert.deepEqual([row, await roleIn(team, invitee.userId)], [{ accepted: false, revoked: true }, null]);
      }
    }
  });
});
