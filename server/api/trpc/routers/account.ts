import { auditAccount } from '../../../modules/audit/record';
import { GRANTABLE } from '../../../modules/vocabulary/roles';
import { transaction } from '../../../../db/transaction';
import { z } from 'zod';
import { ENVIRONMENTS } from '../../../../db/schema';
import { endAllSessions } from '../../../modules/auth/sessions';
import { changePassword, getWorkspace, signUp } from '../../../modules/auth/users';
import { ApiError } from '../../../platform/errors';
import { SCOPE_TABLE } from '../../../modules/vocabulary/scopes';
import { concurrencyFor, limitsFor } from '../../../modules/ratelimit/plans';
import { publicProcedure, router, userProcedure } from '../init';

const password = z.string().min(8, 'Use at least 8 characters').max(200);

const tooMany = (seconds: number, what: string) =>
  new ApiError('rate_limit_exceeded', `Too many ${what} from this address; try again in ${Math.ceil(seconds / 60)} minutes`, {
    headers: { 'Retry-After': String(seconds) },
  });

// Dashboard-only procedures (no OpenAPI meta: they are not part of /v1).
export const accountRouter = router({
  /**
   * Creates an account and its workspace, when SIGNUP_MODE lets this visitor in (auth/signup.ts:
   * in `invite` mode the first account, then the holder of an invitation link for the address,
   * `invitation` being its token); else 403 `signup_closed` saying what they can do, or the
   * invalid link's answer. The answer is the same whether or not the address was already
   * registered (no existence oracle): the form then signs in, which only the owner can.
   */
  signUp: publicProcedure
    .input(
      z.strictObject({
        email: z.email().max(254),
        password,
        name: z.string().trim().max(100).optional(),
        invitation: z.string().min(1).max(200).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const address = ctx.clientAddress ?? 'unknown';
      const wait = (await ctx.limits?.auth.signUp.attempt(address)) ?? 0;
      if (wait > 0) throw tooMany(wait, 'sign-ups');
      try {
        await signUp(ctx.db, input, ctx.request);
      } catch (err) {
        // A link tried and failed counts as on the invitation page (docs/teams.md).
        if (err instanceof ApiError && err.code === 'invitation_invalid') await ctx.limits?.auth.invite.failed(address);
        throw err;
      }
      return { ok: true as const };
    }),

  /** Ends every dashboard session of this user, this one included. */
  signOutEverywhere: userProcedure.mutation(async ({ ctx }) => {
    await transaction(ctx.db, async (tx) => {
      await endAllSessions(tx, ctx.actor.userId);
      await auditAccount(tx, ctx.actor, ctx.actor.userId, { action: 'user.signed_out_everywhere', target: { type: 'user', id: ctx.actor.userId } });
    });
    return { ok: true as const };
  }),

  /** A new password; every other session of this user ends. */
  changePassword: userProcedure
    .input(z.strictObject({ currentPassword: z.string().min(1).max(200), newPassword: password }))
    .mutation(async ({ ctx, input }) => {
      const guard = ctx.limits?.auth.signIn;
      const address = ctx.clientAddress ?? 'unknown';
      const wait = (await guard?.attempt(ctx.actor.userId, address)) ?? 0;
      if (wait > 0) throw tooMany(wait, 'password attempts');
      if (!(await changePassword(ctx.db, ctx.actor.userId, input.currentPassword, input.newPassword, ctx.actor.request))) {
        throw new ApiError('invalid_parameter', 'The current password is not correct', { param: 'currentPassword' });
      }
      await guard?.succeeded(ctx.actor.userId, address);
      await endAllSessions(ctx.db, ctx.actor.userId, ctx.actor.sessionId);
      return { ok: true as const };
    }),

  me: userProcedure.query(async ({ ctx }) => {
    const ws = await getWorkspace(ctx.db, ctx.actor.workspaceId);
    return {
      userId: ctx.actor.userId,
      environment: ctx.actor.environment,
      environments: ENVIRONMENTS,
      scopes: SCOPE_TABLE,
      /** The member's role here, and the scopes it may put on a key (the key dialog offers these only). */
      role: ctx.actor.role,
      grantable: GRANTABLE[ctx.actor.role],
      workspace: ws && {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        limits: { ...limitsFor(ws.plan, ws.customRpm), concurrency: concurrencyFor(ws.plan, ws.customConcurrency) },
      },
    };
  }),
});
