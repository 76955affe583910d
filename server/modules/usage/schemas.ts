import { z } from 'zod';
import { GRANULARITIES } from '../../../db/schema';
import { FINAL_STATUSES } from '../vocabulary/statuses';
import { limitSchema } from '../../platform/pagination';
import { LIMITS, RETENTION_DAYS } from './range';

// The two analytics routes' query parameters and answers (docs/analytics.md). Query strings
// arrive as strings: `limit` is read here (plain decimal digits, server/platform/pagination.ts); dates, `groupBy` and the cursor are checked by the
// service, which names the parameter of each error.

const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T00:00:00.000Z' });
const id = z.string().max(255);

const rangeQuery = {
  start: z.string().max(64).meta({
    description: `Start of the range, ISO 8601 (\`2026-11-01\` or \`2026-11-01T00:00:00Z\`), floored to the granularity's UTC boundary. Hour buckets go back ${RETENTION_DAYS.hour} days, day buckets ${RETENTION_DAYS.day}.`,
    example: '2026-11-01T00:00:00Z',
  }),
  end: z
    .string()
    .max(64)
    .meta({ description: 'End of the range (exclusive), ISO 8601; default now. Rounded up to a bucket boundary, so every bucket is whole.', example: '2026-11-08T00:00:00Z' })
    .optional(),
  granularity: z.enum(GRANULARITIES).meta({ description: 'Bucket width. Default: `day`.', example: 'day' }).optional(),
  limit: limitSchema(LIMITS.day.max, {
    description: `Buckets per page: hour 1–${LIMITS.hour.max} (default ${LIMITS.hour.default}), day 1–${LIMITS.day.max} (default ${LIMITS.day.default}).`,
  }).optional(),
  after: z.string().max(64).meta({ description: 'The `nextCursor` of the previous page.' }).optional(),
};

export const executionAnalyticsInput = z.strictObject({
  ...rangeQuery,
  groupBy: z
    .string()
    .max(100)
    .meta({ description: 'Comma-separated: `agentId`, `agentVersion`, `model`, `status`. Each bucket then holds one row per group with activity, largest first.', example: 'agentId' })
    .optional(),
  agentId: id.meta({ description: 'Only this agent (an unknown id gives empty rows).' }).optional(),
  agentVersion: z.coerce.number().int().min(0).max(1_000_000_000).meta({ description: 'Only runs of this version of their agent (with `agentId`: of that agent; 0: runs from before versions).' }).optional(),
  model: id.meta({ description: 'Only this model, `provider/model`.' }).optional(),
  status: z.enum(FINAL_STATUSES).meta({ description: 'Only executions that ended in this status.' }).optional(),
});

export const requestAnalyticsInput = z.strictObject({
  ...rangeQuery,
  groupBy: z.string().max(100).meta({ description: '`keyId`: one row per key with requests in the bucket, largest first.', example: 'keyId' }).optional(),
  keyId: id.meta({ description: 'Only this key (an unknown id gives empty rows).' }).optional(),
});

const durationSchema = z
  .object({ p50: z.number(), p95: z.number(), p99: z.number() })
  .nullable()
  .meta({ description: 'Percentiles in ms (within 5 % or 1 ms), null when nothing in the row has a duration.', example: { p50: 1210, p95: 2630, p99: 4100 } });

export const executionUsageRowSchema = z
  .object({
    agentId: z.string().optional().meta({ description: 'With `groupBy=agentId`.' }),
    agentVersion: z.number().int().optional().meta({ description: 'With `groupBy=agentVersion` (0: runs from before versions).' }),
    model: z.string().optional().meta({ description: 'With `groupBy=model`.' }),
    status: z.enum(FINAL_STATUSES).optional().meta({ description: 'With `groupBy=status`.' }),
    executions: z.number().int().meta({ example: 120 }),
    succeeded: z.number().int().meta({ example: 112 }),
    failed: z.number().int().meta({ example: 6 }),
    cancelled: z.number().int().meta({ example: 2 }),
    inputTokens: z.number().int().meta({ example: 48_200 }),
    outputTokens: z.number().int().meta({ example: 9_650 }),
    totalTokens: z.number().int().meta({ example: 57_850 }),
    toolCalls: z.number().int().meta({ example: 31 }),
    costUsd: z.number().nullable().meta({ description: 'Estimated from the operator’s price table; 0 in test mode, on the sandbox and for executions that used no tokens; null when a live model in the row used tokens and has no price.', example: 0.013019 }),
    durationMs: durationSchema,
  })
  .meta({ id: 'ExecutionUsage' });

export const requestUsageRowSchema = z
  .object({
    keyId: z.string().optional().meta({ description: 'With `groupBy=keyId`.' }),
    requests: z.number().int().meta({ example: 1_250 }),
    succeeded: z.number().int().meta({ description: '2xx and 3xx.', example: 1_190 }),
    clientErrors: z.number().int().meta({ description: '4xx other than 401, 403 and 429.', example: 41 }),
    unauthorized: z.number().int().meta({ description: '401: a revoked or expired key.', example: 3 }),
    forbidden: z.number().int().meta({ description: '403.', example: 4 }),
    rateLimited: z.number().int().meta({ description: '429.', example: 12 }),
    serverErrors: z.number().int().meta({ description: '5xx.', example: 0 }),
    durationMs: durationSchema,
  })
  .meta({ id: 'RequestUsage' });

function answerSchema<T extends z.ZodType>(row: T, id: string) {
  return z
    .object({
      granularity: z.enum(GRANULARITIES),
      data: z
        .array(z.object({ start: timestamp, end: timestamp, results: z.array(row) }))
        .meta({ description: 'Every bucket of the page in ascending time, empty ones included.' }),
      totals: row.meta({ description: 'The ungrouped row over the whole range, whatever the page.' }),
      hasMore: z.boolean().meta({ description: 'Later buckets of the range exist.' }),
      nextCursor: z.string().optional().meta({ description: 'Pass as `after` for the next page.' }),
    })
    .meta({ id });
}

export const executionAnalyticsSchema = answerSchema(executionUsageRowSchema, 'ExecutionAnalytics');
export const requestAnalyticsSchema = answerSchema(requestUsageRowSchema, 'RequestAnalytics');
