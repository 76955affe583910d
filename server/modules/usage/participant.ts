import { sql, type SQL } from 'drizzle-orm';
import type { executions } from '../../../db/schema';
import type { RunParticipant } from '../vocabulary/participants';

// Usage records (docs/analytics.md) through the run-participant contract
// (vocabulary/participants.ts): a finished execution's record is written by the statement that
// finishes it, so analytics counts a run exactly when it is final, never twice.

type ExecutionRow = typeof executions.$inferSelect;

/**
 * The execution's usage record: the execution just made final, its duration from its start, its
 * tokens and tool calls. The only writer of usage records (migration 0015 dropped 0007's
 * trigger); ON CONFLICT keeps one should a final row ever be finished twice (it cannot: a finish
 * only moves a row out of an active status).
 */
export function usageRecord(row: ExecutionRow): SQL {
  const done = row.completedAt ?? new Date();
  // Time spent awaiting a decision is not the agent's latency (docs/approvals.md).
  const durationMs = row.startedAt ? Math.max(0, done.getTime() - row.startedAt.getTime() - row.awaitedMs) : null;
  const toolCalls = row.steps.reduce((n, step) => n + (Array.isArray(step.toolCalls) ? step.toolCalls.length : 0), 0);
  return sql`insert into usage_execution_records (execution_id, workspace_id, environment, agent_id, agent_version, model, status, completed_at, duration_ms, input_tokens, output_tokens, tool_calls)
    values (${row.id}, ${row.workspaceId}, ${row.environment}, ${row.agentId}, ${row.agentVersion ?? 0}::int, ${row.model}, ${row.status}, ${done.toISOString()}::timestamptz, ${durationMs}::int,
            ${row.inputTokens}::int, ${row.outputTokens}::int, ${toolCalls}::int)
    on conflict (execution_id) do nothing`;
}

export const usageParticipant: RunParticipant = {
  name: 'usage',
  at: (moment, row) => (moment === 'finished' ? { writes: [usageRecord(row)] } : undefined),
};
