// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// The signed-out invitation page (issue 44, item 9; docs/teams.md, "Invitations"): the holder of
// a usable link sees the workspace, the role, who invited them and the address to use — the token
// is the secret. Every other link gets one answer (null), whatever the reason, and counts against
// the client's address like a failed accept: the page is no oracle for guessing links.

let api: TestServer;
let createUser: typeof import('../../server/modules/auth/users').createUser;
let invite: typeof import('../../server/modules/auth/invitations').invite;
before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
  ({ createUser } = await import('../../server/modules/auth/users'));
  ({ invite } = await import('../../server/modules/auth/invitations'));
});
after(() => api?.close());

interface Preview {
  workspace: string;
  role: MemberRole;
  email: string;
  invitedBy: string | null;
  expiresAt: string;
}
type Made = { id: string; email: string; role: MemberRole; token: string; expiresAt: string };

let n = 0;
const address = () => `preview${++n}-${randomBytes(3).toString('hex')}@Example.test`;
const ok = <T>(res: TrpcResponse<T>): T => {
  assert.equal(res.status, 200, JSON.stringify(res.error));
  return res.result as T;
};

/** The page's call, signed out: no session at all. */
async function preview(token: string): Promise<TrpcResponse<Preview | null>> {
  const res = await fetch(`${api.url}/api/trpc/invitations.preview?input=${encodeURIComponent(JSON.stringify({ token }))}`);
  const body = (await res.json()) as { result?: { data: Preview | null }; error?: TrpcResponse<unknown>['error'] };
  return { status: res.status, headers: res.headers, result: body.result?.data, error: body.error };
}

/** A workspace whose owner has a name (the page names the inviter by it). */
async function team(name: string): Promise<Workspace> {
  const email = address();
  const m = await createUser(api.db, { email, name });
  return { id: m.workspaceId, userId: m.userId, email };
}
const inviteAs = async (as: Workspace, email: string, role: MemberRole) => ok(await dashboardCall<Made>(api, as, 'mutation', 'invitations.create', { email, role }));
const workspaceName = async (id: string) => (await api.query<{ name: string }>(sql`select name from workspaces where id = ${id}`))[0]!.name;

/** Links this file tried that were not usable (one address: the server counts them). */
let failures = 0;
async function invalid(token: string): Promise<void> {
  const res = await preview(token);
  assert.equal(res.status, 200, JSON.stringify(res.error));
  assert.equal(res.result, null, 'one answer for every unusable link');
  failures++;
}

describe('a usable link, signed out', () => {
  it('shows the workspace, the role, the inviter by name and address, the invited address and the expiry — never the token', async () => {
    const owner = await team('Ada Lovelace');
    const email = address();
    const made = await inviteAs(owner, email, 'developer');
    const res = await preview(made.token);
    assert.deepEqual(ok(res), {
      workspace: await workspaceName(owner.id),
      role: 'developer',
      email: email.toLowerCase(),
      invitedBy: `Ada Lovelace (${owner.email.toLowerCase()})`,
      expiresAt: made.expiresAt,
    });
    assert.ok(!JSON.stringify(res.result).includes(made.token));
  });

  it('names the inviter by address alone when they have no name, and no one for the admin CLI’s invitations', async () => {
    const owner = await api.seed.workspace();
    const made = await inviteAs(owner, address(), 'viewer');
    assert.equal(ok(await preview(made.token))!.invitedBy, owner.email.toLowerCase());
    const cli = await invite(api.db, { kind: 'system', workspaceId: owner.id }, { email: address(), role: 'admin' });
    assert.equal(ok(await preview(cli.token))!.invitedBy, null);
  });

  it('signed in, the accept page’s peek says the same, for the invited address only', async () => {
    const owner = await team('Grace Hopper');
    const email = address();
    const made = await inviteAs(owner, email, 'admin');
    const m = await createUser(api.db, { email });
    const invitee = { id: m.workspaceId, userId: m.userId, email };
    assert.deepEqual(ok(await dashboardCall(api, invitee, 'query', 'invitations.peek', { token: made.token })), ok(await preview(made.token)));
    const other = await api.seed.workspace();
    assert.equal(ok(await dashboardCall(api, other, 'query', 'invitations.peek', { token: made.token })), null);
    failures++;
  });
});

describe('every other link gets the one answer', () => {
  it('unknown, forged, malformed, too long, expired, revoked, replaced, used, or its inviter removed: null', async () => {
    const owner = await team('Alan Turing');
    await invalid(randomBytes(32).toString('base64url'));
    await invalid('x'.repeat(43));
    await invalid('');
    await invalid('a'.repeat(150));

    const expired = await inviteAs(owner, address(), 'developer');
    await api.query(sql`update invitations set expires_at = now() - interval '1 second' where id = ${expired.id}`);
    await invalid(expired.token);

    const revoked = await inviteAs(owner, address(), 'developer');
    ok(await dashboardCall(api, owner, 'mutation', 'invitations.revoke', { id: revoked.id }));
    await invalid(revoked.token);

    const replacedEmail = address();
    const replaced = await inviteAs(owner, replacedEmail, 'developer');
    const replacement = await inviteAs(owner, replacedEmail, 'viewer');
    await invalid(replaced.token);
    assert.equal(ok(await preview(replacement.token))!.role, 'viewer');

    const usedEmail = address();
    const used = await inviteAs(owner, usedEmail, 'developer');
    const m = await createUser(api.db, { email: usedEmail });
    ok(await dashboardCall(api, { id: m.workspaceId, userId: m.userId, email: usedEmail }, 'mutation', 'invitations.accept', { token: used.token }));
    await invalid(used.token);

    // An admin's invitation stops working when the admin is removed (its sender's authority).
    const adminEmail = address();
    const admin = await createUser(api.db, { email: adminEmail });
    const asAdmin = { id: admin.workspaceId, userId: admin.userId, email: adminEmail };
    ok(await dashboardCall(api, asAdmin, 'mutation', 'invitations.accept', { token: (await inviteAs(owner, adminEmail, 'admin')).token }));
    const sent = await inviteAs({ ...asAdmin, id: owner.id }, address(), 'developer');
    assert.ok(ok(await preview(sent.token)));
    ok(await dashboardCall(api, owner, 'mutation', 'members.remove', { userId: admin.userId }));
    await invalid(sent.token);
  });

  it('failed links from one address are limited: 429 after 20 in an hour, a usable link included', async () => {
    const owner = await api.seed.workspace();
    const made = await inviteAs(owner, address(), 'developer');
    for (let i = 0; i < 25; i++) {
      const res = await preview(randomBytes(32).toString('base64url'));
      if (res.status === 429) {
        assert.equal(res.error!.data.apiError!.code, 'rate_limit_exceeded');
        assert.ok(Number(res.headers.get('retry-after')) > 0);
        assert.equal(failures, 20, 'exactly 20 failures were let through');
        // Past the limit even a usable link waits: the page gives a guesser nothing more.
        assert.equal((await preview(made.token)).status, 429);
        return;
      }
      assert.equal(res.result, null);
      failures++;
    }
    assert.fail('no 429 after 25 forged links');
  });
});
