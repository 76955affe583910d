import { sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { FINAL_STATUSES } from '../vocabulary/statuses';
import { bucketSql } from './histogram';
import { pricedFrom } from '../../platform/prices';
import type { executionUsageRowSchema } from './schemas';
import type { Scope, Series, SeriesQuery } from './series';

// The executions series: rollup rows of compacted records, plus the records not compacted yet
// (summed on the fly, in the same statement, so a finished execution counts at once and never
// twice while the compactor moves it).

export const EXECUTION_GROUPS = { agentId: 'agent_id', agentVersion: 'agent_version', model: 'model', status: 'status' } as const;
export type ExecutionGroup = keyof typeof EXECUTION_GROUPS;

export interface ExecutionFilters {
  agentId?: string;
  agentVersion?: number;
  model?: string;
  status?: string;
}

export type ExecutionUsageRow = z.infer<typeof executionUsageRowSchema>;

const at = (t: number) => sql`${new Date(t).toISOString()}::timestamptz`;

function where(prefix: string, filters: ExecutionFilters): SQL {
  const parts = Object.entries(EXECUTION_GROUPS)
    .filter(([field]) => filters[field as ExecutionGroup] !== undefined)
    .map(([field, column]) => sql` and ${sql.raw(prefix + column)} = ${filters[field as ExecutionGroup]!}`);
  return sql.join(parts, sql``);
}

const byStatus = (status: string) => sql`coalesce(sum(executions) filter (where status = ${status}), 0)`;

export function executionSeries(filters: ExecutionFilters): Series<ExecutionUsageRow> {
  return {
    key: `executions ${JSON.stringify([filters.agentId, filters.agentVersion, filters.model, filters.status])}`,
    source(scope: Scope, q: SeriesQuery) {
      const priced = pricedFrom(sql`usage_execution_records`);
      return sql`select bucket, agent_id, agent_version, model, status, executions, started, input_tokens, output_tokens, tool_calls, cost_usd, unpriced, duration_hist
        from usage_execution_rollups
        where workspace_id = ${scope.workspaceId} and environment = ${scope.environment} and granularity = ${q.granularity}
          and bucket >= ${at(q.from)} and bucket < ${at(q.to)}${where('', filters)}
        union all
        select date_trunc(${q.granularity}, completed_at, 'UTC'), agent_id, agent_version, model, status, 1, (duration_ms is not null)::int,
          input_tokens, output_tokens, tool_calls, coalesce(cost, 0), (cost is null)::int,
          case when duration_ms is null then '' else ${bucketSql(sql`duration_ms`)} || ':1' end
        from (select r.*, ${priced.cost} as cost from ${priced.from}
          where r.workspace_id = ${scope.workspaceId} and r.environment = ${scope.environment}
            and r.completed_at >= ${at(q.from)} and r.completed_at < ${at(q.to)}${where('r.', filters)}) records`;
    },
    counts: [
      ['executions', sql`coalesce(sum(executions), 0)`],
      ...FINAL_STATUSES.map((s): [string, SQL] => [s, byStatus(s)]),
      ['input_tokens', sql`coalesce(sum(input_tokens), 0)`],
      ['output_tokens', sql`coalesce(sum(output_tokens), 0)`],
      ['tool_calls', sql`coalesce(sum(tool_calls), 0)`],
      ['cost', sql`coalesce(sum(cost_usd), 0)`],
      ['unpriced', sql`coalesce(sum(unpriced), 0)`],
    ],
    view({ group, counts }, durations) {
      return {
        ...(group as Pick<ExecutionUsageRow, 'agentId' | 'model' | 'status'>),
        // Group values are read as text: the version is a number (0: runs from before versions).
        ...(group.agentVersion !== undefined ? { agentVersion: Number(group.agentVersion) } : {}),
        executions: counts.executions!,
        succeeded: counts.succeeded!,
        failed: counts.failed!,
        cancelled: counts.cancelled!,
        inputTokens: counts.input_tokens!,
        outputTokens: counts.output_tokens!,
        totalTokens: counts.input_tokens! + counts.output_tokens!,
        toolCalls: counts.tool_calls!,
        // Exact to 1e-6 and beyond: the database sums exact decimals; rounded to 1e-9 here.
        costUsd: counts.unpriced! > 0 ? null : Number(counts.cost!.toFixed(9)),
        durationMs: durations,
      };
    },
    size: (row) => row.executions,
  };
}
