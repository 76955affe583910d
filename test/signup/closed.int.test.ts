// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { startServer, type TestServer } from '../harness';

// SIGNUP_MODE=closed (docs/security.md, "Sign-up"): no visitor creates an account, not even the
// first one nor the holder of an invitation link; the admin CLI creates accounts, and an
// invitation is accepted by signing in to one.

let api: TestServer;
let users: typeof import('../../server/modules/auth/users');
let signIn: NonNullable<Required<import('next-auth').NextAuthOptions>['callbacks']['signIn']>;
before(async () => {
  api = await startServer({ dashboardSession: testSessions(), env: { SIGNUP_MODE: 'closed' } });
  users = await import('../../server/modules/auth/users');
  const { createAuthOptions } = await import('../../server/modules/auth/options');
  signIn = createAuthOptions({ db: () => api.db, signIn: () => undefined }).callbacks!.signIn!;
});
after(() => api?.close());

const PASSWORD = 'correct horse battery staple';
const address = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.test`;
const signUp = (email: string, invitation?: string) =>
  dashboardCall<{ ok: true }>(api, { id: '', userId: '', email: '' }, 'mutation', 'account.signUp', { email, password: PASSWORD, ...(invitation ? { invitation } : {}) });
const outcome = (res: TrpcResponse<unknown>) => (res.status === 200 ? 'ok' : `${res.status} ${res.error?.data.apiError?.code}`);
const accounts = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from users`))[0]!.n;

describe('sign-up closed', () => {
  it('refuses even the first account of an empty installation, saying the operator makes accounts', async () => {
    assert.equal(await accounts(), 0);
    const res = await signUp(address('first'));
    assert.equal(outcome(res), '403 signup_closed');
    assert.match(res.error!.message, /Sign-up is closed on this server: its operator creates the accounts/);
    assert.equal(await accounts(), 0);
  });

  it('an account the admin CLI made signs in and accepts an invitation; the link itself makes no account', async () => {
    const operator = await users.createUser(api.db, { email: address('operator'), password: PASSWORD }, { system: true });
    const email = address('invitee');
    const made = await dashboardCall<{ token: string }>(api, { id: operator.workspaceId, userId: operator.userId, email: operator.email }, 'mutation', 'invitations.create', { email, role: 'viewer' });
    assert.equal(made.status, 200, JSON.stringify(made.error));
    assert.equal(outcome(await signUp(email, made.result!.token)), '403 signup_closed');
    assert.equal(await accounts(), 1);
    const invitee = await users.createUser(api.db, { email, password: PASSWORD }, { system: true });
    assert.ok((await users.verifyCredentials(api.db, email, PASSWORD)).ok, 'signs in');
    const joined = await dashboardCall(api, { id: invitee.workspaceId, userId: invitee.userId, email }, 'mutation', 'invitations.accept', { token: made.result!.token });
    assert.deepEqual(joined.result, { workspaceId: operator.workspaceId, role: 'viewer' });
  });

  it('GitHub makes no new account, even for an invited address', async () => {
    const [{ workspace_id: ws, user_id: owner }] = (await api.query<{ workspace_id: string; user_id: string }>(sql`select workspace_id, user_id from workspace_members limit 1`)) as [{ workspace_id: string; user_id: string }];
    const email = address('gh');
    assert.equal((await dashboardCall(api, { id: ws, userId: owner, email: '' }, 'mutation', 'invitations.create', { email, role: 'viewer' })).status, 200);
    const verdict = await signIn({ user: { id: 'gh', email }, account: { provider: 'github', providerAccountId: `gh-${email}`, type: 'oauth' } } as never);
    assert.equal(verdict, '/signin?error=SignupClosed');
    await assert.rejects(users.upsertGithubUser(api.db, { githubId: `gh-${email}`, email, name: null }), (err: { code?: string }) => err.code === 'signup_closed');
  });
});
