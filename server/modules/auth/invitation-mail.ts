import { eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { users, workspaces } from '../../../db/schema';
import { env } from '../../platform/env.js';
import { log } from '../../platform/log';
import type { Mailer } from '../../platform/mail';
import type { Role } from '../vocabulary/roles';

// An invitation's link, and its mail when SMTP_URL is set (docs/teams.md, "Invitations"). The
// link is built on the dashboard's configured address (NEXTAUTH_URL, else localhost and PORT),
// never on a request's Host: a forged Host header must not put another site's address in a mail
// the service sends. The mail goes after the invitation is committed; if the server refuses it,
// the invitation stands and the inviter is told to share the link themselves.

/** Whether the link was mailed: `off` without SMTP_URL. */
export type MailOutcome = 'sent' | 'failed' | 'off';

/** The absolute address of a dashboard path (`/invite/<token>`). */
export function dashboardUrl(path: string): string {
  return `${(env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '')}${path}`;
}

const ROLE_WORDS: Record<Role, string> = {
  owner: 'an owner',
  admin: 'an admin',
  developer: 'a developer',
  viewer: 'a viewer',
};

/** The mail's subject and text (plain text: nothing in a name can become markup). */
export function invitationMessage(m: { workspace: string; inviter: string | null; role: Role; link: string; expiresAt: string }): { subject: string; text: string } {
  const who = m.inviter ? `${m.inviter} invited you` : 'You are invited';
  return {
    subject: `Join ${m.workspace} on Agent Automation`,
    text: [
      `${who} to join the workspace “${m.workspace}” on Agent Automation as ${ROLE_WORDS[m.role]}.`,
      '',
      'Open this link, then sign in or create an account with this email address:',
      m.link,
      '',
      `The link works once and until ${new Date(m.expiresAt).toUTCString()}.`,
      'If you did not expect this invitation, you can ignore this mail.',
    ].join('\n'),
  };
}

/** Mails the link of a just-made invitation; the outcome, never an error. */
export async function mailInvitation(
  db: Db,
  mailer: Mailer | null | undefined,
  made: { id: string; email: string; role: Role; expiresAt: string; path: string },
  by: { workspaceId: string; userId?: string },
): Promise<MailOutcome> {
  if (!mailer) return 'off';
  try {
    const [ws] = await db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, by.workspaceId));
    const [inviter] = by.userId ? await db.select({ email: users.email }).from(users).where(eq(users.id, by.userId)) : [];
    const message = invitationMessage({ workspace: ws?.name ?? 'a workspace', inviter: inviter?.email ?? null, role: made.role, link: dashboardUrl(made.path), expiresAt: made.expiresAt });
    await mailer.send({ to: made.email, ...message });
    return 'sent';
  } catch (err) {
    log.warn({ invitationId: made.id, err: err instanceof Error ? err.message : String(err) }, 'invitation mail not sent');
    return 'failed';
  }
}
