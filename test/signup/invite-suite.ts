import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer, type Workspace } from '../harness';

// Sign-up in the default mode, `invite` (docs/security.md, "Sign-up"). Reported (issue 43, item 9):
// sign-up was open to anyone who could reach the server, so a stranger on the same café Wi-Fi, or
// anywhere for a server on a public address, could create an account and run agents on the
// operator's model keys. Now the first account of an empty installation signs up (exactly one,
// however many try at once), and after it only the holder of an invitation link, with the
// invited address. Run with SIGNUP_MODE unset, over HTTP to the server's own /api/trpc.

export function inviteModeSuite(env: Record<string, string | undefined> = {}): void {
  let api: TestServer;
  let auth: {
    verifyCredentials: typeof import('../../server/modules/auth/users').verifyCredentials;
    upsertGithubUser: typeof import('../../server/modules/auth/users').upsertGithubUser;
    signIn: NonNullable<Required<import('next-auth').NextAuthOptions>['callbacks']['signIn']>;
  };
  before(async () => {
    // Every request comes from 127.0.0.1: its sign-up limit is raised, not what is tested here.
    api = await startServer({ dashboardSession: testSessions(), env: { SIGNUP_MODE: undefined, RATE_LIMIT_SIGNUPS_PER_HOUR: '1000', ...env } });
    const users = await import('../../server/modules/auth/users');
    const { createAuthOptions } = await import('../../server/modules/auth/options');
    const options = createAuthOptions({ db: () => api.db, signIn: () => undefined });
    auth = { verifyCredentials: users.verifyCredentials, upsertGithubUser: users.upsertGithubUser, signIn: options.callbacks!.signIn! };
  });
  after(() => api?.close());

  const PASSWORD = 'correct horse battery staple';
  const address = (label = 'visitor') => `${label}-${randomBytes(4).toString('hex')}@example.test`;
  const signUp = (email: string, invitation?: string) =>
    dashboardCall<{ ok: true }>(api, { id: '', userId: '', email: '' }, 'mutation', 'account.signUp', { email, password: PASSWORD, ...(invitation ? { invitation } : {}) });
  const outcome = (res: TrpcResponse<unknown>) => (res.status === 200 ? 'ok' : `${res.status} ${res.error?.data.apiError?.code}`);
  const accounts = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from users`))[0]!.n;
  const canSignIn = async (email: string) => (await auth.verifyCredentials(api.db, email, PASSWORD)).ok;
  let owner: Workspace;
  const inviteAs = async (as: Workspace, email: string) => {
    const res = await dashboardCall<{ id: string; token: string }>(api, as, 'mutation', 'invitations.create', { email, role: 'developer' });
    assert.equal(res.status, 200, JSON.stringify(res.error));
    return res.result!;
  };

  describe('sign-up in the default mode (invite)', () => {
    it('eight sign-ups at once on an empty installation make exactly one account, its workspace’s owner', async () => {
      assert.equal(await accounts(), 0, 'an empty installation');
      const emails = Array.from({ length: 8 }, () => address('first'));
      const results = await Promise.all(emails.map((e) => signUp(e)));
      const outcomes = results.map(outcome);
      assert.equal(outcomes.filter((o) => o === 'ok').length, 1, JSON.stringify(outcomes));
      assert.equal(outcomes.filter((o) => o === '403 signup_closed').length, 7, JSON.stringify(outcomes));
      assert.equal(await accounts(), 1);
      const first = emails[outcomes.indexOf('ok')]!;
      assert.ok(await canSignIn(first));
      const [row] = await api.query<{ user_id: string; workspace_id: string; role: string }>(sql`select user_id, workspace_id, role from workspace_members`);
      assert.equal(row!.role, 'owner');
      owner = { id: row!.workspace_id, userId: row!.user_id, email: first };
    });

    it('after the first account, a visitor without an invitation is refused and told how to join; a known address gets the same answer', async () => {
      const stranger = await signUp(address());
      assert.equal(outcome(stranger), '403 signup_closed');
      assert.match(stranger.error!.message, /by invitation: ask an owner or admin/);
      const known = await signUp(owner.email);
      assert.deepEqual([outcome(known), known.error!.message], [outcome(stranger), stranger.error!.message], 'no existence oracle');
      assert.equal(await accounts(), 1);
    });

    it('an invitation link lets its invitee create an account with the invited address, and join', async () => {
      const email = address('invitee');
      const made = await inviteAs(owner, email);
      assert.equal(outcome(await signUp(address('other'), made.token)), '404 invitation_invalid', 'another address with the link');
      assert.equal(outcome(await signUp(email)), '403 signup_closed', 'the invited address without the link');
      assert.equal(await accounts(), 1);
      assert.equal(outcome(await signUp(email.toUpperCase(), made.token)), 'ok');
      assert.ok(await canSignIn(email));
      const [invitee] = await api.query<{ id: string; workspace_id: string }>(
        sql`select u.id, m.workspace_id from users u join workspace_members m on m.user_id = u.id where u.email = ${email}`,
      );
      const joined = await dashboardCall<{ workspaceId: string; role: string }>(api, { id: invitee!.workspace_id, userId: invitee!.id, email }, 'mutation', 'invitations.accept', { token: made.token });
      assert.deepEqual(joined.result, { workspaceId: owner.id, role: 'developer' });
      // Used: it lets no one else in.
      assert.equal(outcome(await signUp(address('late'), made.token)), '404 invitation_invalid');
      assert.equal(await accounts(), 2);
    });

    it('a revoked or expired link creates nothing, nor one whose inviter lost the right to send it', async () => {
      const revokedEmail = address('revoked');
      const revoked = await inviteAs(owner, revokedEmail);
      assert.equal((await dashboardCall(api, owner, 'mutation', 'invitations.revoke', { id: revoked.id })).status, 200);
      assert.equal(outcome(await signUp(revokedEmail, revoked.token)), '404 invitation_invalid');
      const expired = address('expired');
      const late = await inviteAs(owner, expired);
      await api.query(sql`update invitations set expires_at = now() - interval '1 second' where id = ${late.id}`);
      assert.equal(outcome(await signUp(expired, late.token)), '404 invitation_invalid');
      // An invitation left by an older version from an admin demoted since (nothing revoked it).
      const admin = await api.seed.workspace();
      await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${owner.id}, ${admin.userId}, 'admin')`);
      await api.query(sql`update users set current_workspace_id = ${owner.id} where id = ${admin.userId}`);
      const email = address('demoted');
      const made = await inviteAs({ ...admin, id: owner.id }, email);
      await api.query(sql`update workspace_members set role = 'viewer' where workspace_id = ${owner.id} and user_id = ${admin.userId}`);
      assert.equal(outcome(await signUp(email, made.token)), '404 invitation_invalid');
      const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from users where email in (${revokedEmail}, ${expired}, ${email})`);
      assert.equal(row!.n, 0);
    });

    it('GitHub: a new account needs a pending invitation for its verified address; one already made signs in', async () => {
      const stranger = address('gh-stranger');
      const verdict = await auth.signIn({ user: { id: 'gh', email: stranger }, account: { provider: 'github', providerAccountId: `gh-${stranger}`, type: 'oauth' } } as never);
      assert.equal(verdict, '/signin?error=SignupByInvitation');
      await assert.rejects(auth.upsertGithubUser(api.db, { githubId: `gh-${stranger}`, email: stranger, name: null }), (err: { code?: string }) => err.code === 'signup_closed');
      const invited = address('gh-invited');
      await inviteAs(owner, invited);
      const account = { provider: 'github', providerAccountId: `gh-${invited}`, type: 'oauth' };
      assert.equal(await auth.signIn({ user: { id: 'gh', email: invited }, account } as never), true);
      const made = await auth.upsertGithubUser(api.db, { githubId: `gh-${invited}`, email: invited, name: null });
      assert.equal(made.email, invited);
      // Signing in again is not a sign-up: the invitation is not needed any more.
      await api.query(sql`update invitations set revoked_at = now() where email = ${invited}`);
      assert.equal(await auth.signIn({ user: { id: 'gh', email: invited }, account } as never), true);
      assert.equal((await auth.upsertGithubUser(api.db, { githubId: `gh-${invited}`, email: invited, name: null })).userId, made.userId);
    });
  });
}
