import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import type { AuditEventView } from '../../server/modules/audit/schemas';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// Invitations (docs/teams.md, "Invitations"), with an attacker's pass: a link is single-use, valid
// 7 days, for one address; reused, expired, revoked, forged or another address's links all get
// the same answer; failures are limited per address; only the token's hash is stored.

let api: TestServer;
let createUser: typeof import('../../server/modules/auth/users').createUser;
let invite: typeof import('../../server/modules/auth/invitations').invite;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
  ({ createUser } = await import('../../server/modules/auth/users'));
  ({ invite } = await import('../../server/modules/auth/invitations'));
});
after(() => api?.close());

type Made = { id: string; email: string; role: MemberRole; token: string; path: string; expiresAt: string };
let n = 0;
/** A user signed up with `email` (their own workspace shown). */
async function user(email: string): Promise<Workspace> {
  const m = await createUser(api.db, { email });
  return { id: m.workspaceId, userId: m.userId, email };
}
const address = () => `invitee${++n}-${randomBytes(3).toString('hex')}@Example.test`;
const ok = <T>(res: TrpcResponse<T>): T => {
  assert.equal(res.status, 200, JSON.stringify(res.error));
  return res.result as T;
};
/** Links this file's requests tried and failed (all come from one address: the server counts them). */
let failures = 0;
function refusedWith(res: TrpcResponse<unknown>, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.error ?? res.result));
  if (code === 'invitation_invalid') failures++;
  assert.equal(res.error!.data.apiError!.code, code);
  return res.error!.message;
}
const inviteAs = (as: Workspace, email: string, role: MemberRole) => dashboardCall<Made>(api, as, 'mutation', 'invitations.create', { email, role });
const peek = (as: Workspace, token: string) => dashboardCall<{ workspace: string; role: string } | null>(api, as, 'query', 'invitations.peek', { token });
const accept = (as: Workspace, token: string) => dashboardCall<{ workspaceId: string; role: string }>(api, as, 'mutation', 'invitations.accept', { token });

describe('inviting and joining', () => {
  it('an owner invites an address; its owner signs up and joins with the role; the link is shown once and stored as a hash', async () => {
    const team = await api.seed.workspace();
    const email = address();
    const made = ok(await inviteAs(team, email, 'developer'));
    assert.equal(made.email, email.toLowerCase());
    assert.match(made.path, /^\/invite\/[A-Za-z0-9_-]{43}$/);
    assert.equal(made.path, `/invite/${made.token}`);
    assert.ok(Math.abs(Date.parse(made.expiresAt) - Date.now() - 7 * 86_400_000) < 60_000, 'valid 7 days');
    const pending = ok(await dashboardCall<Record<string, unknown>[]>(api, team, 'query', 'invitations.list'));
    assert.deepEqual(pending.map((p) => p.id), [made.id]);
    assert.ok(!JSON.stringify(pending).includes(made.token), 'the list never shows a token');
    const [row] = await api.query<Record<string, unknown>>(sql`select * from invitations where id = ${made.id}`);
    assert.ok(!JSON.stringify(row).includes(made.token), 'only its hash is stored');

    const invitee = await user(email);
    assert.deepEqual(ok(await peek(invitee, made.token)), {
      workspace: (await api.query<{ name: string }>(sql`select name from workspaces where id = ${team.id}`))[0]!.name,
      role: 'developer',
      email: email.toLowerCase(),
      invitedBy: team.email.toLowerCase(),
      expiresAt: made.expiresAt,
    });
    assert.deepEqual(ok(await accept(invitee, made.token)), { workspaceId: team.id, role: 'developer' });
    // The joined workspace is the one their dashboard shows now, with the role.
    const me = ok(await dashboardCall<{ role: string; workspace: { id: string } }>(api, invitee, 'query', 'account.me'));
    assert.deepEqual([me.workspace.id, me.role], [team.id, 'developer']);
    assert.deepEqual(ok(await dashboardCall<unknown[]>(api, team, 'query', 'invitations.list')), [], 'accepted: no longer pending');
    const audit = ok(await dashboardCall<{ data: AuditEventView[] }>(api, team, 'query', 'audit.list', {}, { environment: 'live' })).data;
    assert.deepEqual(audit.map((r) => r.action).slice(0, 2), ['member.joined', 'invitation.created']);
    assert.deepEqual(audit[0]!.actor, { type: 'user', id: invitee.userId, email: email.toLowerCase() });
  });

  it('only owners and admins invite; only owners invite an owner; a member is not invited twice', async () => {
    const team = await api.seed.workspace();
    const devEmail = address();
    const dev = await user(devEmail);
    ok(await accept(dev, ok(await inviteAs(team, devEmail, 'developer')).token));
    const adminEmail = address();
    const admin = await user(adminEmail);
    ok(await accept(admin, ok(await inviteAs(team, adminEmail, 'admin')).token));
    refusedWith(await inviteAs(dev, address(), 'viewer'), 403, 'insufficient_role');
    refusedWith(await dashboardCall(api, dev, 'query', 'invitations.list'), 403, 'insufficient_role');
    refusedWith(await inviteAs(admin, address(), 'owner'), 403, 'insufficient_role');
    ok(await inviteAs(admin, address(), 'viewer'));
    refusedWith(await inviteAs(team, devEmail.toUpperCase(), 'viewer'), 409, 'already_member');
  });
});

describe('an attacker’s pass on invitation links', () => {
  let team: Workspace;
  before(async () => {
    team = await api.seed.workspace();
  });

  it('reuse, another address, expiry, revocation, replacement and forgery all get one and the same answer', async () => {
    const email = address();
    const invitee = await user(email);
    const stranger = await user(address());
    const used = ok(await inviteAs(team, email, 'viewer'));
    const messages: string[] = [];
    // Another address with a valid link: nothing, and the link still works for its owner.
    assert.equal(ok(await peek(stranger, used.token)), null);
    failures++;
    messages.push(refusedWith(await accept(stranger, used.token), 404, 'invitation_invalid'));
    ok(await accept(invitee, used.token));
    // Reused (by its owner, who left since).
    ok(await dashboardCall(api, invitee, 'mutation', 'members.remove', { userId: invitee.userId }));
    messages.push(refusedWith(await accept(invitee, used.token), 404, 'invitation_invalid'));
    // Expired.
    const expired = ok(await inviteAs(team, email, 'viewer'));
    await api.query(sql`update invitations set expires_at = now() - interval '1 second' where id = ${expired.id}`);
    messages.push(refusedWith(await accept(invitee, expired.token), 404, 'invitation_invalid'));
    // Revoked.
    const revoked = ok(await inviteAs(team, email, 'viewer'));
    ok(await dashboardCall(api, team, 'mutation', 'invitations.revoke', { id: revoked.id }));
    messages.push(refusedWith(await accept(invitee, revoked.token), 404, 'invitation_invalid'));
    // Replaced by a newer invitation of the same address.
    const first = ok(await inviteAs(team, email, 'viewer'));
    const second = ok(await inviteAs(team, email, 'admin'));
    messages.push(refusedWith(await accept(invitee, first.token), 404, 'invitation_invalid'));
    // Forged: a well-formed random token, one a character off, one oversized.
    for (const token of [randomBytes(32).toString('base64url'), second.token.slice(0, -1) + (second.token.endsWith('A') ? 'B' : 'A'), 'x'.repeat(150)]) {
      const res = await accept(invitee, token);
      messages.push(res.status === 400 ? 'too long: refused as input' : refusedWith(res, 404, 'invitation_invalid'));
    }
    assert.equal(new Set(messages.filter((m) => !m.startsWith('too long'))).size, 1, 'one answer for every reason');
    assert.deepEqual(ok(await accept(invitee, second.token)), { workspaceId: team.id, role: 'admin' });
  });

  it('two accepts of one link at once: it is used once', async () => {
    const email = address();
    const invitee = await user(email);
    const made = ok(await inviteAs(team, email, 'developer'));
    const results = await Promise.all([accept(invitee, made.token), accept(invitee, made.token)]);
    const outcomes = results.map((r) => (r.status === 200 ? 'ok' : r.error!.data.apiError!.code)).sort();
    failures += outcomes.filter((o) => o === 'invitation_invalid').length;
    assert.equal(outcomes.filter((o) => o === 'ok').length, 1, JSON.stringify(outcomes));
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from workspace_members where workspace_id = ${team.id} and user_id = ${invitee.userId}`);
    assert.equal(row!.n, 1);
  });

  it('the admin CLI invites as the system; the link works like any other', async () => {
    const email = address();
    const made = await invite(api.db, { kind: 'system', workspaceId: team.id, request: { ip: null, userAgent: 'admin-cli', requestId: null } }, { email, role: 'viewer' });
    const invitee = await user(email);
    assert.deepEqual(ok(await accept(invitee, made.token)), { workspaceId: team.id, role: 'viewer' });
    const [record] = await api.query<{ actor_type: string; user_agent: string }>(sql`select actor_type, user_agent from audit_events where target_id = ${made.id}`);
    assert.deepEqual(record, { actor_type: 'system', user_agent: 'admin-cli' });
  });

  it('failed links from one address are limited: 429 after 20 in an hour, with Retry-After', async () => {
    const prober = await user(address());
    for (let i = 0; i < 25; i++) {
      const res = await accept(prober, randomBytes(32).toString('base64url'));
      if (res.status === 429) {
        assert.equal(res.error!.data.apiError!.code, 'rate_limit_exceeded');
        assert.ok(Number(res.headers.get('retry-after')) > 0);
        assert.equal(failures, 20, 'exactly 20 failures were let through');
        return;
      }
      refusedWith(res, 404, 'invitation_invalid');
    }
    assert.fail('no 429 after 25 forged links');
  });
});
