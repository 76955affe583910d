// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import { dashboardCall, testSessions, type TrpcResponse } from '../dashboard';
import { eventually } from '../eventually';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startServer, type TestServer, type Workspace } from '../harness';

// Invitation mail (docs/teams.md, "Invitations"): with SMTP_URL set, an invitation's link is also
// mailed — to a real local SMTP server here — as plain text, on the dashboard's configured
// address whatever Host the request claimed, under a one-line subject whatever the workspace is
// called; a refused mail leaves the invitation standing and says so.

const PUBLIC_URL = 'https://agents.example.test';
let smtp: FakeSmtp;
let api: TestServer;
before(async () => {
  smtp = await startFakeSmtp();
  api = await startServer({ dashboardSession: testSessions(), env: { SMTP_URL: smtp.url, MAIL_FROM: 'Agent Automation <agents@example.test>', NEXTAUTH_URL: PUBLIC_URL } });
});
after(async () => {
  await api?.close();
  await smtp?.close();
});

type Made = { id: string; email: string; role: MemberRole; token: string; path: string; mail: 'sent' | 'failed' | 'off' };
const address = () => `mailed-${randomBytes(4).toString('hex')}@Example.test`;
const ok = <T>(res: TrpcResponse<T>): T => {
  assert.equal(res.status, 200, JSON.stringify(res.error));
  return res.result as T;
};
const inviteAs = (as: Workspace, email: string, role: MemberRole, headers?: Record<string, string>) =>
  dashboardCall<Made>(api, as, 'mutation', 'invitations.create', { email, role }, { headers });
const mailTo = (email: string) => smtp.received.filter((m) => m.rcptTo.includes(email.toLowerCase()));

describe('invitation mail', () => {
  it('mails the link as plain text, on NEXTAUTH_URL even when the request names another host', async () => {
    const team = await api.seed.workspace();
    const email = address();
    const made = ok(await inviteAs(team, email, 'developer', { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' }));
    assert.equal(made.mail, 'sent');
    const [mail] = await eventually('the mail', () => mailTo(email), (m) => m.length === 1);
    assert.deepEqual(mail!.rcptTo, [email.toLowerCase()]);
    assert.equal(mail!.mailFrom, 'agents@example.test');
    assert.equal(mail!.parsed.subject, `Join ${await workspaceName(team.id)} on Agent Automation`);
    assert.equal(mail!.parsed.html, false, 'text only');
    const text = mail!.parsed.text ?? '';
    assert.ok(text.includes(`${PUBLIC_URL}/invite/${made.token}`), text);
    assert.ok(!text.includes('evil.example'));
    assert.match(text, /as a developer/);
    assert.match(text, /works once/);
  });

  it('keeps a workspace name with line breaks on one subject line: no header is injected, no one else receives it', async () => {
    const team = await api.seed.workspace();
    await api.query(sql`update workspaces set name = ${'Acme\r\nBcc: attacker@evil.example\r\nX-Injected: 1'} where id = ${team.id}`);
    const email = address();
    ok(await inviteAs(team, email, 'viewer'));
    const [mail] = await eventually('the mail', () => mailTo(email), (m) => m.length === 1);
    assert.deepEqual(mail!.rcptTo, [email.toLowerCase()]);
    assert.equal(mail!.parsed.subject, 'Join Acme Bcc: attacker@evil.example X-Injected: 1 on Agent Automation');
    assert.equal(mail!.parsed.headers.has('x-injected'), false);
    assert.equal(mail!.parsed.bcc, undefined);
    assert.ok(!smtp.received.some((m) => m.rcptTo.includes('attacker@evil.example')));
  });

  it('invitations count against the workspace’s plan like every change: past it, 429 and nothing is written or mailed', async () => {
    const team = await api.seed.workspace({ plan: 'enterprise', customRpm: 2 });
    ok(await inviteAs(team, address(), 'viewer'));
    ok(await inviteAs(team, address(), 'viewer'));
    const email = address();
    const res = await inviteAs(team, email, 'viewer');
    assert.equal(res.status, 429, JSON.stringify(res.result));
    assert.equal(res.error!.data.apiError!.code, 'rate_limit_exceeded');
    const pending = ok(await dashboardCall<{ email: string }[]>(api, team, 'query', 'invitations.list'));
    assert.equal(pending.length, 2);
    assert.equal(mailTo(email).length, 0);
  });

  it('a mail the server refuses leaves the invitation standing, and the answer says to share the link', async () => {
    const team = await api.seed.workspace();
    const email = address();
    smtp.refuse.add(email.toLowerCase());
    const made = ok(await inviteAs(team, email, 'admin'));
    assert.equal(made.mail, 'failed');
    assert.match(made.path, /^\/invite\/[A-Za-z0-9_-]{43}$/);
    const pending = ok(await dashboardCall<{ id: string }[]>(api, team, 'query', 'invitations.list'));
    assert.deepEqual(
      pending.map((p) => p.id),
      [made.id],
    );
    assert.equal(mailTo(email).length, 0);
  });
});

async function workspaceName(id: string): Promise<string> {
  const [row] = await api.query<{ name: string }>(sql`select name from workspaces where id = ${id}`);
  return row!.name;
}
