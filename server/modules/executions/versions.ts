import { sql, type SQL } from 'drizzle-orm';
import type { agents, AgentConfig } from '../../../db/schema';
import { ApiError } from '../../platform/errors';

// Which version of its agent a run runs (docs/versions.md, "Which version runs"): the one asked
// for (`version`, or the version `label` points at), else — for a later turn of a conversation —
// the version its first turn ran, else the version `production` points at. Resolved in the start
// statement's read of the agent (no round trip of its own): the agent's row is the latest
// version, and an older version's config is read by a subquery of the same statement only when
// it is not the latest.

type AgentRow = typeof agents.$inferSelect;

/** The start statement's columns that resolve the version, and their reading (throws a 400 for an unknown version or label). */
export function versionToRun(input: { version?: number; label?: string }, conversationId: string | undefined, pinned?: number | null) {
  if (input.version !== undefined && input.label !== undefined) {
    throw new ApiError('parameter_conflict', "Pass either 'version' or 'label', not both", { param: 'label' });
  }
  const asked = input.version ?? pinned ?? undefined;
  // Qualified by hand: drizzle writes a column of the one table read unqualified, and inside the
  // subquery below an unqualified "version" would be the version row's.
  const [labels, latest, agentId] = [sql.raw('"agents"."labels"'), sql.raw('"agents"."version"'), sql.raw('"agents"."id"')];
  const production = sql`coalesce((${labels} ->> 'production')::int, ${latest})`;
  const resolved: SQL =
    asked !== undefined
      ? sql`${asked}::int`
      : input.label !== undefined
        ? sql`(case when ${labels} -> ${input.label}::text is null then null else coalesce((${labels} ->> ${input.label}::text)::int, ${latest}) end)`
        : conversationId !== undefined
          ? sql`coalesce((select c.agent_version from conversations c where c.id = ${conversationId}), ${production})`
          : production;
  return {
    columns: {
      runVersion: sql<number | null>`${resolved}`,
      runConfig: sql<string | null>`(select v.config::text from agent_versions v where v.agent_id = ${agentId} and v.version = ${resolved} and v.version <> ${latest})`,
    },
    read(found: { agent: AgentRow; runVersion: unknown; runConfig: unknown }): { agent: AgentRow; agentVersion: number | null } {
      const { agent } = found;
      const version = found.runVersion === null ? null : Number(found.runVersion);
      if (version === null) throw new ApiError('invalid_parameter', `The agent has no label '${String(input.label).slice(0, 40)}'`, { param: 'label' });
      const param = input.label !== undefined ? 'label' : 'version';
      if (version === agent.version) return { agent, agentVersion: version > 0 ? version : null };
      if (typeof found.runConfig !== 'string') throw new ApiError('invalid_parameter', `The agent has no version ${version} (its latest is ${agent.version})`, { param });
      const config = JSON.parse(found.runConfig) as AgentConfig;
      return { agent: { ...agent, ...config }, agentVersion: version };
    },
  };
}
