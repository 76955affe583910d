// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import { startServer, type TestServer } from '../harness';

// SIGNUP_MODE=open (docs/security.md, "Sign-up"): anyone who reaches the server creates an
// account, as before the default became `invite` — the setting an operator chooses knowingly.
// The per-address limit still holds (RATE_LIMIT_SIGNUPS_PER_HOUR: test/dashboard-auth.int.test.ts).

let api: TestServer;
before(async () => {
  api = await startServer({ dashboardSession: testSessions(), env: { SIGNUP_MODE: 'open' } });
});
after(() => api?.close());

describe('sign-up open', () => {
  it('lets every visitor create an account and its workspace, no invitation needed', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await dashboardCall(api, { id: '', userId: '', email: '' }, 'mutation', 'account.signUp', { email: `open${i}-${randomBytes(3).toString('hex')}@example.test`, password: 'correct horse battery staple' });
      assert.equal(res.status, 200, JSON.stringify(res.error));
    }
    const [row] = await api.query<{ users: number; owners: number }>(sql`select (select count(*)::int from users) as users, (select count(*)::int from workspace_members where role = 'owner') as owners`);
    assert.deepEqual(row, { users: 3, owners: 3 });
  });
});
