import { z } from 'zod';
import { GRANULARITIES } from '../../../../db/schema';
import {
  executionAnalyticsInput,
  executionAnalyticsSchema,
  executionUsageRowSchema,
  requestAnalyticsInput,
  requestAnalyticsSchema,
  requestUsageRowSchema,
} from '../../../modules/usage/schemas';
import { executionAnalytics, requestAnalytics, usageByGroup } from '../../../modules/usage/service';
import { apiProcedure, router } from '../init';

const tags = ['Analytics'];

export const analyticsRouter = router({
  executions: apiProcedure
    .meta({
      scope: 'analytics:read',
      errors: ['invalid_cursor'],
      openapi: {
        method: 'GET',
        path: '/v1/analytics/executions',
        tags,
        summary: 'Execution usage',
        description:
          'Executions that ended in this workspace and environment, by hour or day of their `completedAt`: counts by status, tokens, tool calls, estimated cost and duration percentiles, optionally grouped by agent, model or status. Every bucket of the page is listed, empty ones included; `totals` covers the whole range.',
        successDescription: 'A page of buckets and the totals of the range',
      },
    })
    .input(executionAnalyticsInput)
    .output(executionAnalyticsSchema)
    .query(({ ctx, input }) => executionAnalytics(ctx.db, ctx.actor, input)),

  requests: apiProcedure
    .meta({
      scope: 'analytics:read',
      errors: ['invalid_cursor'],
      openapi: {
        method: 'GET',
        path: '/v1/analytics/requests',
        tags,
        summary: 'API request usage',
        description:
          '`/v1` requests made with this workspace’s keys in this environment, refusals included (401 of a revoked or expired key, 403, 429), by outcome, with response-time percentiles, optionally per key. Counted within seconds of the answer.',
        successDescription: 'A page of buckets and the totals of the range',
      },
    })
    .input(requestAnalyticsInput)
    .output(requestAnalyticsSchema)
    .query(({ ctx, input }) => requestAnalytics(ctx.db, ctx.actor, input)),

  /** Dashboard only (no /v1 route): one row per agent, model or key over the whole range. */
  byGroup: apiProcedure
    .meta({ scope: 'analytics:read' })
    .input(
      z.strictObject({
        series: z.enum(['executions', 'requests']),
        start: z.string().max(64),
        end: z.string().max(64).optional(),
        granularity: z.enum(GRANULARITIES).optional(),
        groupBy: z.string().max(100),
      }),
    )
    .output(z.object({ executions: z.array(executionUsageRowSchema), requests: z.array(requestUsageRowSchema) }))
    .query(({ ctx, input }) => usageByGroup(ctx.db, ctx.actor, input)),
});
