import { z } from 'zod';
import type { Db } from '../../../../db/client';
import { MEMBER_ROLES } from '../../../../db/schema/values';
import type { UserActor } from '../../../modules/actor';
import { mailInvitation } from '../../../modules/auth/invitation-mail';
import { acceptInvitation, invite, listInvitations, peekInvitation, previewInvitation, revokeInvitation } from '../../../modules/auth/invitations';
import { changeRole, listMembers, listWorkspaces, removeMember, switchWorkspace } from '../../../modules/auth/members';
import { managesMembers, roleRefusal } from '../../../modules/vocabulary/roles';
import type { RateLimits } from '../../../modules/ratelimit';
import { chargeDashboardMutation } from '../../../modules/ratelimit/dashboard';
import { ApiError } from '../../../platform/errors';
import { publicProcedure, router, userProcedure } from '../init';

// The dashboard's team procedures (docs/teams.md): the workspace's members and their roles, and
// the workspaces a user belongs to. Not part of /v1: keys act for a workspace, people join one.
// Each checks the caller's role on the server (auth/members.ts), whatever the page offered.

const userId = z.string().min(1).max(100);

/**
 * Every change here counts against the workspace's plan, as every dashboard change does
 * (ratelimit/dashboard.ts): past the minute's or day's limit, 429 and nothing is written — each
 * change is an audit record, and unlimited ones could push the rest out of an export (issue 43).
 * Charged to the workspace the dashboard shows, before the change is tried.
 */
async function charge(ctx: { limits?: RateLimits; db: Db; actor: UserActor }): Promise<void> {
  const refused = ctx.limits ? await chargeDashboardMutation(ctx.limits, ctx.db, ctx.actor) : null;
  if (refused) throw refused;
}

export const membersRouter = router({
  list: userProcedure.query(({ ctx }) => listMembers(ctx.db, ctx.actor.workspaceId)),

  updateRole: userProcedure
    .input(z.strictObject({ userId, role: z.enum(MEMBER_ROLES) }))
    .mutation(async ({ ctx, input }) => {
      await charge(ctx);
      return changeRole(ctx.db, ctx.actor, input.userId, input.role);
    }),

  /** Removes a member, or leaves the workspace (your own id). */
  remove: userProcedure.input(z.strictObject({ userId })).mutation(async ({ ctx, input }) => {
    await charge(ctx);
    return removeMember(ctx.db, ctx.actor, input.userId);
  }),
});

export const workspacesRouter = router({
  list: userProcedure.query(({ ctx }) => listWorkspaces(ctx.db, ctx.actor.userId, ctx.actor.workspaceId)),

  /** Shows another of your workspaces from the next request on (the choice is kept). */
  switch: userProcedure.input(z.strictObject({ workspaceId: z.string().min(1).max(100) })).mutation(async ({ ctx, input }) => {
    await charge(ctx);
    return switchWorkspace(ctx.db, ctx.actor, input.workspaceId);
  }),
});

/** The address a dashboard request came from (for the invitation links' per-address limit). */
const addressOf = (ctx: { clientAddress?: string }) => ctx.clientAddress || 'unknown';

export const invitationsRouter = router({
  /** Invites an address with a role: the answer holds the link's token, shown this once. */
  create: userProcedure
    .input(z.strictObject({ email: z.email().max(254), role: z.enum(MEMBER_ROLES) }))
    .mutation(async ({ ctx, input }) => {
      // It may send a mail too: an admin cannot mail addresses without end.
      await charge(ctx);
      const made = await invite(ctx.db, ctx.actor, input);
      // Mailed when SMTP_URL is set, after the invitation is committed (the link is shown either way).
      return { ...made, mail: await mailInvitation(ctx.db, ctx.services?.mail, made, ctx.actor) };
    }),

  list: userProcedure.query(({ ctx }) => {
    if (!managesMembers(ctx.actor.role)) throw new ApiError('insufficient_role', roleRefusal(ctx.actor.role, 'see invitations: owners and admins can'));
    return listInvitations(ctx.db, ctx.actor.workspaceId);
  }),

  revoke: userProcedure.input(z.strictObject({ id: z.string().min(1).max(100) })).mutation(async ({ ctx, input }) => {
    await charge(ctx);
    return revokeInvitation(ctx.db, ctx.actor, input.id);
  }),

  /** What a link invites the signed-in user to, or null (not valid for them: one answer for every reason). */
  peek: userProcedure.input(z.strictObject({ token: z.string().max(200) })).query(async ({ ctx, input }) => {
    await checkInviteAttempts(ctx);
    const found = await peekInvitation(ctx.db, ctx.actor.userId, input.token);
    if (!found) await ctx.limits?.auth.invite.failed(addressOf(ctx));
    return found;
  }),

  /**
   * Signed out: what a link invites to (workspace, role, inviter, the invited address), or null —
   * one answer for every link that is not usable, counted against the address like a failed
   * accept, so the page is no oracle for guessing links (docs/teams.md, "Invitations").
   */
  preview: publicProcedure.input(z.strictObject({ token: z.string().max(200) })).query(async ({ ctx, input }) => {
    await checkInviteAttempts(ctx);
    const found = await previewInvitation(ctx.db, input.token);
    if (!found) await ctx.limits?.auth.invite.failed(addressOf(ctx));
    return found;
  }),

  accept: userProcedure.input(z.strictObject({ token: z.string().max(200) })).mutation(async ({ ctx, input }) => {
    await checkInviteAttempts(ctx);
    try {
      return await acceptInvitation(ctx.db, ctx.actor, input.token);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invitation_invalid') await ctx.limits?.auth.invite.failed(addressOf(ctx));
      throw err;
    }
  }),
});

/** Links tried and failed from one address are limited (docs/teams.md): 429 past the limit. */
async function checkInviteAttempts(ctx: { limits?: RateLimits; clientAddress?: string }): Promise<void> {
  const wait = (await ctx.limits?.auth.invite.check(addressOf(ctx))) ?? 0;
  if (wait > 0) throw new ApiError('rate_limit_exceeded', `Too many invitation links tried from this address; try again in ${Math.ceil(wait / 60)} minutes`, { headers: { 'Retry-After': String(wait) } });
}
