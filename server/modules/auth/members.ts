import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { advisoryXactLock } from '../../../db/advisory';
import { queryRows } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { users, workspaceMembers, workspaces } from '../../../db/schema';
import type { UserActor } from '../actor';
import { audit, changesOf } from '../audit/record';
import { ApiError } from '../../platform/errors';
import { revokeSentBy } from './invitations';
import { isDemotion, managesMembers, roleRefusal, type Role } from '../vocabulary/roles';

// Members of a workspace (docs/teams.md): who belongs, with which role; the workspace a user's
// dashboard shows. Membership is read on every dashboard request (`memberOf`): a role change or a
// removal applies to the member's next request, in every process. A workspace always keeps an
// owner: changes that could leave none take a lock on the workspace's members first.

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
}

/**
 * The workspace a user's dashboard shows and their role in it: the one they chose last (the
 * switcher), else their oldest membership. Null: they belong to none (signed out).
 */
export async function memberOf(db: Db, userId: string): Promise<{ workspaceId: string; role: Role } | null> {
  const [row] = await queryRows<{ workspace_id: string; role: Role }>(
    db,
    sql`select m.workspace_id, m.role from workspace_members m join users u on u.id = m.user_id
        where m.user_id = ${userId}
        order by (m.workspace_id = u.current_workspace_id) desc nulls last, m.created_at asc, m.workspace_id asc limit 1`,
  );
  return row ? { workspaceId: row.workspace_id, role: row.role } : null;
}

export async function listMembers(db: Db, workspaceId: string): Promise<Member[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, name: users.name, role: workspaceMembers.role, joinedAt: workspaceMembers.createdAt })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(eq(workspaceMembers.workspaceId, workspaceId))
    .orderBy(asc(workspaceMembers.createdAt), asc(users.id));
  return rows.map((r) => ({ ...r, joinedAt: r.joinedAt.toISOString() }));
}

/** The workspaces a user belongs to, with their role in each, the one shown first. */
export async function listWorkspaces(db: Db, userId: string, current: string) {
  const rows = await db
    .select({ id: workspaces.id, name: workspaces.name, plan: workspaces.plan, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(asc(workspaceMembers.createdAt));
  return rows.map((r) => ({ ...r, current: r.id === current }));
}

const notAMember = (userId: string) => new ApiError('resource_not_found', `No such member: '${userId.slice(0, 64)}'`, { param: 'userId' });

/** Shows `workspaceId` in the user's dashboard from their next request on (they must belong to it). */
export async function switchWorkspace(db: Db, actor: UserActor, workspaceId: string): Promise<{ workspaceId: string }> {
  const [row] = await db
    .update(users)
    .set({ currentWorkspaceId: workspaceId })
    .where(and(eq(users.id, actor.userId), sql`exists (select 1 from workspace_members m where m.user_id = ${actor.userId} and m.workspace_id = ${workspaceId})`))
    .returning({ id: users.id });
  if (!row) throw new ApiError('resource_not_found', `No such workspace: '${workspaceId.slice(0, 64)}'`, { param: 'workspaceId' });
  return { workspaceId };
}

/**
 * The members of the actor's workspace locked until the transaction ends (an advisory lock per
 * workspace), and the target's row: what the last-owner rule is judged on.
 */
async function lockedMembers(tx: Db, workspaceId: string) {
  await advisoryXactLock(tx, sql`hashtextextended(${`members:${workspaceId}`}, 0)`);
  return tx.select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, workspaceId));
}

function mayManage(actor: UserActor, from: Role, to: Role | null): void {
  if (!managesMembers(actor.role)) throw new ApiError('insufficient_role', roleRefusal(actor.role, 'manage members: owners and admins can'));
  if ((from === 'owner' || to === 'owner') && actor.role !== 'owner') throw new ApiError('insufficient_role', roleRefusal(actor.role, 'make, demote or remove owners: only owners can'));
}

const lastOwner = () => new ApiError('last_owner', 'A workspace keeps at least one owner: make another member an owner first');

/**
 * Changes a member's role (owners and admins; owners only for owners). The last owner stays one.
 * A demotion revokes the invitations the member sent.
 */
export async function changeRole(db: Db, actor: UserActor, userId: string, role: Role): Promise<Member> {
  return transaction(db, async (tx) => {
    const members = await lockedMembers(tx, actor.workspaceId);
    const target = members.find((m) => m.userId === userId);
    if (!target) throw notAMember(userId);
    mayManage(actor, target.role, role);
    if (target.role === 'owner' && role !== 'owner' && members.filter((m) => m.role === 'owner').length === 1) throw lastOwner();
    if (target.role !== role) {
      await tx.update(workspaceMembers).set({ role }).where(and(eq(workspaceMembers.workspaceId, actor.workspaceId), eq(workspaceMembers.userId, userId)));
      await audit(tx, actor, { action: 'member.role_changed', target: { type: 'user', id: userId }, environment: null, changes: changesOf({ role: target.role }, { role }, ['role']) });
      // A demotion takes back the invitations they sent (docs/teams.md): all of them, not only
      // those the new role could not send — the demotion withdraws trust, the new role may invite again.
      if (isDemotion(target.role, role)) await revokeSentBy(tx, actor, userId, 'inviter_demoted');
    }
    return (await listMembers(tx, actor.workspaceId)).find((m) => m.userId === userId)!;
  });
}

/**
 * Removes a member (owners and admins; owners only for an owner; anyone may leave). Their access
 * to this workspace ends with their next request; the workspace's keys stay, the invitations they
 * sent are revoked. The last owner stays.
 */
export async function removeMember(db: Db, actor: UserActor, userId: string): Promise<{ userId: string; removed: true }> {
  return transaction(db, async (tx) => {
    const members = await lockedMembers(tx, actor.workspaceId);
    const target = members.find((m) => m.userId === userId);
    if (!target) throw notAMember(userId);
    if (userId !== actor.userId) mayManage(actor, target.role, null);
    if (target.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1) throw lastOwner();
    await tx.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, actor.workspaceId), eq(workspaceMembers.userId, userId)));
    const left = userId === actor.userId;
    await audit(tx, actor, { action: left ? 'member.left' : 'member.removed', target: { type: 'user', id: userId }, environment: null, changes: { role: [target.role, null] } });
    // What they invited, no one may accept in their name any more (docs/teams.md).
    await revokeSentBy(tx, actor, userId, left ? 'inviter_left' : 'inviter_removed');
    return { userId, removed: true as const };
  });
}
