import { z } from 'zod';
import { ENVIRONMENTS } from '../../../db/schema';
import { createUser, getWorkspace } from '../../auth/users';
import { SCOPE_TABLE } from '../../keys/scopes';
import { limitsFor } from '../../ratelimit/plans';
import { publicProcedure, router, userProcedure } from '../init';

// Dashboard-only procedures (no OpenAPI meta: they are not part of /v1).
export const accountRouter = router({
  signUp: publicProcedure
    .input(
      z.strictObject({
        email: z.email().max(254),
        password: z.string().min(8, 'Use at least 8 characters').max(200),
        name: z.string().trim().max(100).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const m = await createUser(ctx.db, input);
      return { userId: m.userId, workspaceId: m.workspaceId };
    }),

  me: userProcedure.query(async ({ ctx }) => {
    const ws = await getWorkspace(ctx.db, ctx.actor.workspaceId);
    return {
      userId: ctx.actor.userId,
      environment: ctx.actor.environment,
      environments: ENVIRONMENTS,
      scopes: SCOPE_TABLE,
      workspace: ws && {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        limits: limitsFor(ws.plan, ws.customRpm),
      },
    };
  }),
});
