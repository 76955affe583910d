import { sql, type SQL } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, real, text, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts';
import { environmentColumn, ts } from './columns';

const environment = environmentColumn('agents');

/** An HTTP tool as stored (docs/api.md, "Agents"); `parameters` is the JSON Schema given at
 * create/update. */
export interface StoredHttpTool {
  type: 'http';
  name: string;
  description: string;
  /** Sealed when it holds a credential (place `agents.tool_url:<agent id>:<tool>`), else as given. */
  url: string;
  /** The URL with its credentials masked (what viewers and events see). Absent on tools of an older version. */
  maskedUrl?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  parameters: Record<string, unknown>;
  /** Absent in agents stored before approvals: `never`. */
  approval?: 'never' | 'always';
}

/** A remote MCP server's tools (docs/api.md, "Agents"): `headers` values are secrets, never in a
 * response; `allowedTools` null offers every tool the server lists. */
export interface StoredMcpTool {
  type: 'mcp';
  name: string;
  /** Sealed when it holds a credential, as an HTTP tool's. */
  url: string;
  maskedUrl?: string;
  allowedTools: string[] | null;
  headers: Record<string, string>;
  /** `{tools}`: the listed tools need approval, the others not. Absent: `never`. */
  approval?: 'never' | 'always' | { tools: string[] };
}

export type StoredTool = StoredHttpTool | StoredMcpTool;

/**
 * An agent holding a secret not sealed yet (docs/security.md, "Secrets at rest"): its tool
 * secrets, an MCP header value (`aas_unsealed_headers`, migration 0013), or a tool URL stored by
 * an older version, without its `maskedUrl` (`aas_unmasked_urls`, migration 0024). The partial index
 * `agents_unsealed_idx` holds these rows only, so the start-up finds them without reading every
 * agent; the start-up's query must use this same predicate for the index to serve it.
 */
export const unsealedAgent = (t: { toolSecret: AnyPgColumn; previousToolSecret: AnyPgColumn; tools: AnyPgColumn }): SQL =>
  sql`(not starts_with(${t.toolSecret}, 'enc:') or not starts_with(${t.previousToolSecret}, 'enc:') or aas_unsealed_headers(${t.tools}) or aas_unmasked_urls(${t.tools}))`;

export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    environment: environment.column,
    name: text('name').notNull(),
    description: text('description'),
    model: text('model').notNull(),
    instructions: text('instructions'),
    tools: jsonb('tools').$type<StoredTool[]>().notNull().default([]),
    temperature: real('temperature'),
    maxSteps: integer('max_steps').notNull(),
    timeoutSeconds: integer('timeout_seconds').notNull(),
    // A run's token cap (docs/api.md, "Agents"): past it the run ends `max_tokens_exceeded`; null: none.
    maxTotalTokens: integer('max_total_tokens'),
    // How long a tool call may await a decision before the service denies it as `expired`.
    approvalTimeoutSeconds: integer('approval_timeout_seconds').notNull().default(86_400),
    // Whether its runs' traces carry the content (prompts, answers, tool arguments and results: docs/traces.md).
    traceContent: boolean('trace_content').notNull().default(false),
    // The JSON Schema its final answers must match (docs/versions.md, "Structured outputs"); null: free text.
    outputSchema: jsonb('output_schema').$type<Record<string, unknown>>(),
    // The latest version (docs/versions.md): its behaviour is this row's; 0 until start-up gives an
    // agent made before versions its version 1.
    version: integer('version').notNull().default(0),
    // Labels and the versions they point at; null: follows the latest (`production` always exists).
    labels: jsonb('labels').$type<Record<string, number | null>>().notNull().default({ production: null }),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    // Signs the agent's HTTP tool calls (Standard Webhooks, `whsec_…`); never in an API response.
    toolSecret: text('tool_secret').notNull(),
    // After a rotation the previous secret signs alongside the new one until it expires (24 h).
    previousToolSecret: text('previous_tool_secret'),
    previousToolSecretExpiresAt: ts('previous_tool_secret_expires_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    // Deleted agents stay as rows so their executions keep their history; they are never listed.
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    environment.check(t.environment),
    index('agents_list_idx')
      .on(t.workspaceId, t.environment, t.id)
      .where(sql`${t.deletedAt} is null`),
    index('agents_unsealed_idx').on(t.id).where(unsealedAgent(t)),
    // Agents made before versions, until start-up gives them their version 1 (versions.ts).
    index('agents_unversioned_idx').on(t.id).where(sql`${t.version} = 0`),
  ],
);

/** What a version keeps of an agent (docs/versions.md): every field of its behaviour, as stored (secrets sealed). */
export interface AgentConfig {
  model: string;
  instructions: string | null;
  tools: StoredTool[];
  temperature: number | null;
  maxSteps: number;
  timeoutSeconds: number;
  maxTotalTokens: number | null;
  approvalTimeoutSeconds: number;
  traceContent: boolean;
  outputSchema: Record<string, unknown> | null;
}

/** Who made a version: a user, an API key, or the service (an agent's first version when versions began). */
export type VersionAuthor = { type: 'user'; id: string; email: string | null } | { type: 'key'; id: string; prefix: string | null } | { type: 'system' };

// An agent's versions (docs/versions.md): immutable, one per change of its behaviour, kept as
// long as the agent's row (a deleted agent's stay with it: its executions name them).
export const agentVersions = pgTable(
  'agent_versions',
  {
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    config: jsonb('config').$type<AgentConfig>().notNull(),
    // sha256 of the canonical JSON of the config as the API shows it (secrets masked).
    digest: text('digest').notNull(),
    createdBy: jsonb('created_by').$type<VersionAuthor>().notNull(),
    note: text('note'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  // The primary key serves every read: one version, and an agent's newest first.
  (t) => [primaryKey({ columns: [t.agentId, t.version] })],
);
