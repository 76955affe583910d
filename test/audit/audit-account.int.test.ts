// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { AuditEventView } from '../../server/modules/audit/schemas';
import { expectStatus } from '../expect';
import { startServer, type TestServer } from '../harness';

// Sign-ins and changes of a user's own account are recorded in each workspace the user belongs
// to, as workspace-wide records (environment null, seen from either environment); a failed
// sign-in for an address with no account goes to no workspace (docs/audit.md).

let api: TestServer;
let authorize: (creds: Record<string, string>, req: { headers: Record<string, string> }) => Promise<{ id: string } | null>;
let caller: (ctx: Record<string, unknown>) => ReturnType<typeof import('../../server/api/trpc/router').appRouter.createCaller>;
let setWorkspacePlan: typeof import('../../server/modules/auth/users').setWorkspacePlan;

before(async () => {
  api = await startServer();
  const { createAuthOptions } = await import('../../server/modules/auth/options');
  const options = createAuthOptions({ db: () => api.db, signIn: () => api.runtime.limits.auth.signIn });
  authorize = (options.providers[0] as unknown as { options: { authorize: typeof authorize } }).options.authorize;
  const { appRouter } = await import('../../server/api/trpc/router');
  caller = (ctx) => appRouter.createCaller({ requestId: 'req_test', db: api.db, actor: null, limits: api.runtime.limits, ...ctx } as never);
  ({ setWorkspacePlan } = await import('../../server/modules/auth/users'));
});
after(() => api?.close());

const PASSWORD = 'correct horse battery staple';

async function recordsOf(workspaceId: string): Promise<AuditEventView[]> {
  const [member] = await api.query<{ user_id: string }>(sql`select user_id from workspace_members where workspace_id = ${workspaceId}`);
  const { seed } = api;
  const key = await seed.key({ workspace: { id: workspaceId, userId: member!.user_id, email: '' } as never, environment: 'live', scopes: ['audit:read'] });
  const res = await api.request<{ data: AuditEventView[] }>('GET', '/v1/audit-events?limit=100', { key: key.key });
  expectStatus(res, 200);
  return res.body.data.filter((r) => r.action !== 'key.created');
}

describe('account records', () => {
  it('sign-up, sign-ins (and failed ones), a new password and signing out everywhere', async () => {
    const email = `audit-${Date.now()}@example.com`;
    const request = { ip: '203.0.113.9', userAgent: 'Mozilla/5.0 audit', requestId: 'req_01JD8X41B2C3D4E5F6G7H8J9KB' };
    await caller({ clientAddress: '203.0.113.9', request }).account.signUp({ email, password: PASSWORD });
    const headers = { 'x-aas-client-address': '203.0.113.9', 'user-agent': 'Mozilla/5.0 audit' };
    assert.equal(await authorize({ email, password: 'wrong password!' }, { headers }), null);
    const user = await authorize({ email, password: PASSWORD }, { headers });
    assert.ok(user);
    const [ws] = await api.query<{ workspace_id: string }>(sql`select workspace_id from workspace_members where user_id = ${user.id}`);
    const actor = { kind: 'user', userId: user.id, workspaceId: ws!.workspace_id, environment: 'live', scopes: [], request };
    await caller({ actor, request }).account.changePassword({ currentPassword: PASSWORD, newPassword: `${PASSWORD}!` });
    await caller({ actor, request }).account.signOutEverywhere();
    const list = await recordsOf(ws!.workspace_id);
    assert.deepEqual(
      list.map((r) => r.action).reverse(),
      ['user.created', 'user.sign_in_failed', 'user.signed_in', 'user.password_changed', 'user.signed_out_everywhere'],
    );
    for (const r of list) {
      assert.equal(r.environment, null, 'workspace-wide');
      assert.deepEqual(r.actor, { type: 'user', id: user.id, email });
      assert.deepEqual(r.target, { type: 'user', id: user.id });
      assert.equal(r.ip, '203.0.113.9');
    }
    assert.equal(list.find((r) => r.action === 'user.signed_in')!.userAgent, 'Mozilla/5.0 audit');
    assert.deepEqual(list.find((r) => r.action === 'user.password_changed')!.changes, { password: [null, 'changed'] });
    assert.ok(!JSON.stringify(list).includes(PASSWORD), 'never a password');
  });

  it('a failed sign-in for an address with no account is recorded nowhere', async () => {
    const before = (await api.query<{ n: number }>(sql`select count(*)::int as n from audit_events`))[0]!.n;
    assert.equal(await authorize({ email: 'nobody-here@example.com', password: PASSWORD }, { headers: { 'x-aas-client-address': '203.0.113.10' } }), null);
    const after = (await api.query<{ n: number }>(sql`select count(*)::int as n from audit_events`))[0]!.n;
    assert.equal(after, before);
  });

  it('the admin CLI’s plan change is the system’s, named as the CLI', async () => {
    const o = await api.seed.key();
    await setWorkspacePlan(api.db, o.workspace.id, 'professional', null, null, { ip: null, userAgent: 'admin-cli', requestId: null });
    const [record] = (await recordsOf(o.workspace.id)).filter((r) => r.action === 'workspace.plan_changed');
    assert.deepEqual(record!.actor, { type: 'system' });
    assert.equal(record!.userAgent, 'admin-cli');
    assert.deepEqual(record!.changes, { plan: ['starter', 'professional'] });
    assert.equal(record!.environment, null);
  });
});
