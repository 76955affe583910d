import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { advisoryXactLock } from '../../../db/advisory';
import { transaction } from '../../../db/transaction';
import { invitations, users, workspaceMembers, workspaces } from '../../../db/schema';
import type { RequestContext } from '../actor';
import { audit, type AuditActor } from '../audit/record';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { canonicalEmail } from './guards';
import { managesMembers, mayGrant, roleRefusal, type Role } from '../vocabulary/roles';

// Invitations (docs/teams.md, "Invitations"): an owner or admin invites an email address with a
// role; the answer carries a single-use link valid 7 days, shown once — only the token's SHA-256
// is stored, as for keys. The invitee signs in (or up) with that address and accepts. Every link
// that is not valid for the one trying it — unknown, forged, expired, revoked, used, or for
// another address — gets the same answer, so a link tells nothing it was not made to tell.

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Pending invitations a workspace may have at once. */
export const MAX_PENDING_INVITATIONS = 100;

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
  invitedBy: string | null;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const view = (r: typeof invitations.$inferSelect): InvitationView => ({
  id: r.id,
  email: r.email,
  role: r.role,
  expiresAt: r.expiresAt.toISOString(),
  createdAt: r.createdAt.toISOString(),
  invitedBy: r.invitedByUserId,
});

/** Who invites: a member who manages members (owners only for an owner), or the admin CLI (the system). */
type Inviter = { kind: 'user'; userId: string; role: Role; workspaceId: string; request?: RequestContext } | { kind: 'system'; workspaceId: string; request?: RequestContext };

function mayInvite(inviter: Inviter, role: Role): void {
  if (inviter.kind === 'system') return;
  if (!managesMembers(inviter.role)) throw new ApiError('insufficient_role', roleRefusal(inviter.role, 'invite members: owners and admins can'));
  if (!mayGrant(inviter.role, role)) throw new ApiError('insufficient_role', roleRefusal(inviter.role, 'invite an owner: only owners can'));
}

/**
 * An invitation is only as good as its sender's authority (issue 43): its inviter is still a
 * member of the workspace with a role that may grant the invited one (`mayGrant`, written out in
 * SQL: owners grant any role, admins any but owner) — or it came from the admin CLI (no inviter).
 * Judged at the moment of accepting (and peeking), whatever happened since the invitation was made.
 */
const inviterStillGrants = sql`(${invitations.invitedByUserId} is null or exists (
  select 1 from workspace_members g
  where g.workspace_id = ${invitations.workspaceId} and g.user_id = ${invitations.invitedByUserId}
    and (g.role = 'owner' or (g.role = 'admin' and ${invitations.role} <> 'owner'))))`;

/** Why a member's invitations were revoked with a change of their membership (in the audit record). */
export type RevokedBecause = 'inviter_removed' | 'inviter_left' | 'inviter_demoted';

/**
 * Revokes the pending invitations `userId` sent in the workspace, in the transaction that removes
 * or demotes them (members.ts, under the members' lock): what they may no longer grant must not be
 * granted later in their name. Each is recorded as revoked by whoever made the change, with why.
 * An accept running at the same time either took the invitation first (its row lock makes this
 * update skip it: they joined before the change) or finds it revoked.
 */
export async function revokeSentBy(tx: Db, actor: AuditActor & { workspaceId: string }, userId: string, reason: RevokedBecause, now = new Date()): Promise<number> {
  const revoked = await tx
    .update(invitations)
    .set({ revokedAt: now })
    .where(and(eq(invitations.workspaceId, actor.workspaceId), eq(invitations.invitedByUserId, userId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .returning({ id: invitations.id, email: invitations.email, role: invitations.role });
  for (const row of revoked) {
    await audit(tx, actor, { action: 'invitation.revoked', target: { type: 'invitation', id: row.id }, environment: null, changes: { email: [row.email, null], role: [row.role, null], reason: [null, reason] } });
  }
  return revoked.length;
}

/**
 * Invites `email` with `role` (inviting the same address again replaces its pending invitation).
 * Returns the invitation and its token, shown this once: the link is `/invite/<token>`.
 */
export async function invite(db: Db, inviter: Inviter, input: { email: string; role: Role }, now = new Date()): Promise<InvitationView & { token: string; path: string }> {
  mayInvite(inviter, input.role);
  const email = canonicalEmail(input.email);
  const token = randomBytes(32).toString('base64url');
  return transaction(db, async (tx) => {
    await advisoryXactLock(tx, sql`hashtextextended(${`members:${inviter.workspaceId}`}, 0)`);
    const [member] = await tx
      .select({ id: users.id })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(and(eq(workspaceMembers.workspaceId, inviter.workspaceId), sql`lower(${users.email}) = ${email}`));
    if (member) throw new ApiError('already_member', 'This address belongs to a member of the workspace already', { param: 'email' });
    // The address's pending invitation, if any, is replaced: its link stops working.
    await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(and(eq(invitations.workspaceId, inviter.workspaceId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
    const [{ n }] = (await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(invitations)
      .where(and(eq(invitations.workspaceId, inviter.workspaceId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))) as [{ n: number }];
    if (n >= MAX_PENDING_INVITATIONS) throw new ApiError('invitation_limit_reached', `A workspace may have ${MAX_PENDING_INVITATIONS} pending invitations; revoke some first`);
    const [row] = await tx
      .insert(invitations)
      .values({
        id: newId('inv'),
        workspaceId: inviter.workspaceId,
        email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedByUserId: inviter.kind === 'user' ? inviter.userId : null,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        createdAt: now,
      })
      .returning();
    await audit(tx, inviter as AuditActor, { action: 'invitation.created', target: { type: 'invitation', id: row!.id }, environment: null, changes: { email: [null, email], role: [null, input.role] } });
    return { ...view(row!), token, path: `/invite/${token}` };
  });
}

/** The workspace's pending invitations (not accepted, revoked or expired), oldest first; never a token. */
export async function listInvitations(db: Db, workspaceId: string, now = new Date()): Promise<InvitationView[]> {
  const rows = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .orderBy(asc(invitations.id));
  return rows.map(view);
}

export async function revokeInvitation(db: Db, inviter: Extract<Inviter, { kind: 'user' }>, id: string, now = new Date()): Promise<{ id: string; revoked: true }> {
  return transaction(db, async (tx) => {
    const [row] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.id, id), eq(invitations.workspaceId, inviter.workspaceId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
    if (!row) throw new ApiError('resource_not_found', `No such invitation: '${id.slice(0, 64)}'`, { param: 'id' });
    mayInvite(inviter, row.role);
    await tx.update(invitations).set({ revokedAt: now }).where(eq(invitations.id, id));
    await audit(tx, inviter, { action: 'invitation.revoked', target: { type: 'invitation', id }, environment: null, changes: { email: [row.email, null], role: [row.role, null] } });
    return { id, revoked: true as const };
  });
}

/**
 * Whether a pending invitation, still valid, is for `email` — the one whose link is `token` when
 * given. Sign-up in `invite` mode admits its holder (signup.ts); a verified address (GitHub's)
 * needs no link.
 */
export async function pendingInvitationFor(db: Db, email: string, token?: string, now = new Date()): Promise<boolean> {
  if (token !== undefined && token.length > 100) return false;
  const [row] = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        eq(invitations.email, canonicalEmail(email)),
        token === undefined ? undefined : eq(invitations.tokenHash, hashToken(token)),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, now),
        inviterStillGrants,
      ),
    )
    .limit(1);
  return row !== undefined;
}

const invalid = () =>
  new ApiError('invitation_invalid', 'This invitation link is not valid for your account: it may have expired, been used or revoked, or be meant for another email address');

/** Who sent an invitation, as its page names them: their name and address (null: the admin CLI's). */
const inviterOf = sql<string | null>`(select case when u.name is null or u.name = '' then u.email else u.name || ' (' || u.email || ')' end
  from users u where u.id = ${invitations.invitedByUserId})`;

/** What an invitation page shows the holder of a valid link. */
export interface InvitationPreview {
  workspace: string;
  role: Role;
  /** The address it is for: the one to sign in or sign up with. */
  email: string;
  /** Who sent it (name and address), null when the admin CLI made it. */
  invitedBy: string | null;
  expiresAt: string;
}

/** A link that may still be used: not accepted, revoked or expired, its inviter still able to grant its role. */
const usable = (token: string, now: Date) => and(eq(invitations.tokenHash, hashToken(token)), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now), inviterStillGrants);

const previewColumns = { workspace: workspaces.name, role: invitations.role, email: invitations.email, invitedBy: inviterOf, expiresAt: invitations.expiresAt };
const previewOf = (row: { workspace: string; role: Role; email: string; invitedBy: string | null; expiresAt: Date }): InvitationPreview => ({ ...row, expiresAt: row.expiresAt.toISOString() });

/**
 * What the page shows someone signed out who holds a link (docs/teams.md, "Invitations"): the
 * workspace, the role, the inviter and the invited address — the token is the secret, and the one
 * it was sent to needs the address to sign up or in. Null for every link that is not usable, the
 * same whatever the reason (the caller counts it against the address, as a failed accept).
 */
export async function previewInvitation(db: Db, token: string, now = new Date()): Promise<InvitationPreview | null> {
  if (token.length > 100) return null;
  const [row] = await db.select(previewColumns).from(invitations).innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId)).where(usable(token, now));
  return row ? previewOf(row) : null;
}

/** What the accept page shows a signed-in user holding a link, when the link is valid for them (else null: the same for every reason). */
export async function peekInvitation(db: Db, userId: string, token: string, now = new Date()): Promise<InvitationPreview | null> {
  if (token.length > 100) return null;
  const [row] = await db
    .select(previewColumns)
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .innerJoin(users, eq(users.id, userId))
    .where(and(usable(token, now), sql`${invitations.email} = lower(${users.email})`));
  return row ? previewOf(row) : null;
}

/**
 * Joins the workspace a link invites the signed-in user to, if it is valid for them (its inviter
 * still able to grant the role included): one conditional update makes it single-use under any
 * race. The workspace becomes the one their dashboard shows.
 */
export async function acceptInvitation(db: Db, user: { userId: string; request?: RequestContext }, token: string, now = new Date()): Promise<{ workspaceId: string; role: Role }> {
  if (token.length > 100) throw invalid();
  return transaction(db, async (tx) => {
    const [row] = await tx
      .update(invitations)
      .set({ acceptedAt: now, acceptedByUserId: user.userId })
      .where(
        and(
          eq(invitations.tokenHash, hashToken(token)),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
          gt(invitations.expiresAt, now),
          sql`${invitations.email} = (select lower(email) from users where id = ${user.userId})`,
          inviterStillGrants,
        ),
      )
      .returning();
    if (!row) throw invalid();
    const joined = await tx.insert(workspaceMembers).values({ workspaceId: row.workspaceId, userId: user.userId, role: row.role }).onConflictDoNothing().returning({ role: workspaceMembers.role });
    if (joined.length === 0) throw new ApiError('already_member', 'You are a member of this workspace already');
    await tx.update(users).set({ currentWorkspaceId: row.workspaceId }).where(eq(users.id, user.userId));
    await audit(tx, { kind: 'user', userId: user.userId, request: user.request }, {
      action: 'member.joined',
      target: { type: 'user', id: user.userId },
      workspaceId: row.workspaceId,
      environment: null,
      changes: { role: [null, row.role], invitation: [null, row.id] },
    });
    return { workspaceId: row.workspaceId, role: row.role };
  });
}
