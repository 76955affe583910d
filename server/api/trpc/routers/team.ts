import { z } from 'zod';
import { MEMBER_ROLES } from '../../../../db/schema/values';
import { changeRole, listMembers, listWorkspaces, removeMember, switchWorkspace } from '../../../modules/auth/members';
import { router, userProcedure } from '../init';

// The dashboard's team procedures (docs/teams.md): the workspace's members and their roles, and
// the workspaces a user belongs to. Not part of /v1: keys act for a workspace, people join one.
// Each checks the caller's role on the server (auth/members.ts), whatever the page offered.

const userId = z.string().min(1).max(100);

export const membersRouter = router({
  list: userProcedure.query(({ ctx }) => listMembers(ctx.db, ctx.actor.workspaceId)),

  updateRole: userProcedure
    .input(z.strictObject({ userId, role: z.enum(MEMBER_ROLES) }))
    .mutation(({ ctx, input }) => changeRole(ctx.db, ctx.actor, input.userId, input.role)),

  /** Removes a member, or leaves the workspace (your own id). */
  remove: userProcedure.input(z.strictObject({ userId })).mutation(({ ctx, input }) => removeMember(ctx.db, ctx.actor, input.userId)),
});

export const workspacesRouter = router({
  list: userProcedure.query(({ ctx }) => listWorkspaces(ctx.db, ctx.actor.userId, ctx.actor.workspaceId)),

  /** Shows another of your workspaces from the next request on (the choice is kept). */
  switch: userProcedure.input(z.strictObject({ workspaceId: z.string().min(1).max(100) })).mutation(({ ctx, input }) => switchWorkspace(ctx.db, ctx.actor, input.workspaceId)),
});
