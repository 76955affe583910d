import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { requestUsageRowSchema } from './schemas';
import type { Scope, Series, SeriesQuery } from './series';

// The API requests series: the hour and day rows each process's buffer flushes (requests.ts).

export const REQUEST_GROUPS = { keyId: 'key_id' } as const;
export type RequestGroup = keyof typeof REQUEST_GROUPS;

export type RequestUsageRow = z.infer<typeof requestUsageRowSchema>;

const OUTCOMES = [
  ['succeeded', 'succeeded'],
  ['clientErrors', 'client_errors'],
  ['unauthorized', 'unauthorized'],
  ['forbidden', 'forbidden'],
  ['rateLimited', 'rate_limited'],
  ['serverErrors', 'server_errors'],
] as const;

export function requestSeries(filters: { keyId?: string }): Series<RequestUsageRow> {
  return {
    key: `requests ${JSON.stringify([filters.keyId])}`,
    source(scope: Scope, q: SeriesQuery) {
      return sql`select * from usage_request_rollups
        where workspace_id = ${scope.workspaceId} and environment = ${scope.environment} and granularity = ${q.granularity}
          and bucket >= ${new Date(q.from).toISOString()}::timestamptz and bucket < ${new Date(q.to).toISOString()}::timestamptz
          ${filters.keyId !== undefined ? sql`and key_id = ${filters.keyId}` : sql``}`;
    },
    counts: OUTCOMES.map(([name, column]) => [name, sql`coalesce(sum(${sql.raw(column)}), 0)`]),
    view({ group, counts }, durations) {
      const outcomes = Object.fromEntries(OUTCOMES.map(([name]) => [name, counts[name]!])) as Record<(typeof OUTCOMES)[number][0], number>;
      return {
        ...group,
        requests: Object.values(outcomes).reduce((a, b) => a + b, 0),
        ...outcomes,
        durationMs: durations,
      };
    },
    size: (row) => row.requests,
  };
}
