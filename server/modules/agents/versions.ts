import { createHash } from 'node:crypto';
import { and, asc, desc, eq, gt, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { agents, agentVersions, type AgentConfig, type VersionAuthor } from '../../../db/schema';
import type { AuditActor } from '../audit/record';
import { canonicalJson } from '../../platform/canonical-json';
import { ApiError } from '../../platform/errors';
import type { Page } from '../../platform/pagination';
import { shownUrl, toolUrlPlace, viewedUrl } from '../secrets/stored';
import { toolView } from './mcp-headers';
import type { AgentConfigView, AgentVersionView } from './version-schemas';

// An agent's versions (docs/versions.md): every change of its behaviour makes one, immutable,
// numbered 1, 2, … with its author, an optional note and a digest. The agent's row holds the
// latest (its columns are that version's config, `version` its number), so a run of the latest
// reads nothing more; an older version is read with the run's start (executions/service.ts).

type AgentRow = typeof agents.$inferSelect;

/** The fields of an agent that are its behaviour: a change to any of them is a new version. */
export const BEHAVIOUR_FIELDS = ['model', 'instructions', 'tools', 'temperature', 'maxSteps', 'timeoutSeconds', 'maxTotalTokens', 'approvalTimeoutSeconds', 'traceContent', 'outputSchema'] as const;

/** The behaviour of an agent's row, as a version keeps it. */
export function configOf(row: Pick<AgentRow, (typeof BEHAVIOUR_FIELDS)[number]>): AgentConfig {
  return {
    model: row.model,
    instructions: row.instructions,
    tools: row.tools,
    temperature: row.temperature,
    maxSteps: row.maxSteps,
    timeoutSeconds: row.timeoutSeconds,
    maxTotalTokens: row.maxTotalTokens,
    approvalTimeoutSeconds: row.approvalTimeoutSeconds,
    traceContent: row.traceContent,
    outputSchema: row.outputSchema,
  };
}

/** A config as the API shows it: tool URLs whole or masked (as the agent's), MCP header values never. */
export function configView(agentId: string, config: AgentConfig, whole: boolean): AgentConfigView {
  const tools = config.tools.map((t) => toolView(t, whole ? viewedUrl(toolUrlPlace(agentId, t.name), t.url, t.maskedUrl) : shownUrl(t.url, t.maskedUrl)));
  return { ...config, tools };
}

/** sha256 of the canonical JSON (keys sorted) of the config as the API shows it masked: equal configs, equal digests. */
export const digestOf = (agentId: string, config: AgentConfig): string => createHash('sha256').update(canonicalJson(configView(agentId, config, false))).digest('hex');

/** Who made a version, as SQL (the email or key prefix read as the version is written, like the audit log's). */
function authorOf(actor: AuditActor): SQL {
  if (actor.kind === 'user') return sql`jsonb_build_object('type', 'user', 'id', ${actor.userId}::text, 'email', (select email from users where id = ${actor.userId}))`;
  if (actor.kind === 'key') return sql`jsonb_build_object('type', 'key', 'id', ${actor.keyId}::text, 'prefix', (select prefix from api_keys where id = ${actor.keyId}))`;
  return sql`'{"type":"system"}'::jsonb`;
}

/** Writes version `version` of an agent whose row is `row` (in the transaction that changed it). */
export async function writeVersion(tx: Db, row: AgentRow, actor: AuditActor, note: string | null): Promise<void> {
  const config = configOf(row);
  await tx.insert(agentVersions).values({
    agentId: row.id,
    version: row.version,
    config,
    digest: digestOf(row.id, config),
    createdBy: authorOf(actor) as unknown as VersionAuthor,
    note,
    createdAt: row.updatedAt,
  });
}

type VersionRow = typeof agentVersions.$inferSelect;

export function versionView(row: VersionRow, whole: boolean): AgentVersionView {
  return {
    agentId: row.agentId,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    note: row.note,
    digest: row.digest,
    config: configView(row.agentId, row.config, whole),
  };
}

const cursorOf = (param: 'after' | 'before', value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new ApiError('invalid_cursor', `'${param}' must be a version number`, { param });
  return Number(value);
};

/** An agent's versions, newest first (keyset on the version number: `after` older than, `before` newer than). */
export async function listVersions(db: Db, agentId: string, params: { limit?: number; after?: string; before?: string }, whole: boolean): Promise<Page<AgentVersionView>> {
  if (params.after !== undefined && params.before !== undefined) throw new ApiError('parameter_conflict', "Pass either 'after' or 'before', not both", { param: 'before' });
  const limit = params.limit ?? 20;
  const after = cursorOf('after', params.after);
  const before = cursorOf('before', params.before);
  const newer = before !== undefined;
  const rows = await db
    .select()
    .from(agentVersions)
    .where(and(eq(agentVersions.agentId, agentId), after !== undefined ? lt(agentVersions.version, after) : undefined, newer ? gt(agentVersions.version, before) : undefined))
    .orderBy(newer ? asc(agentVersions.version) : desc(agentVersions.version))
    .limit(limit + 1);
  const more = rows.length > limit;
  const data = rows.slice(0, limit);
  if (newer) data.reverse();
  const views = data.map((r) => versionView(r, whole));
  if (views.length === 0) return { data: views, hasMore: false };
  const first = views[0]!.version;
  const last = views.at(-1)!.version;
  // Older ones exist: when paging back, past the last (version 1 is the oldest); newer: the first is below the latest.
  const hasMore = newer ? last > 1 : more;
  const [top] = await db.select({ version: agents.version }).from(agents).where(eq(agents.id, agentId));
  return { data: views, hasMore, ...(hasMore ? { nextCursor: String(last) } : {}), ...(top && first < top.version ? { prevCursor: String(first) } : {}) };
}

export async function getVersion(db: Db, agentId: string, version: number, whole: boolean): Promise<AgentVersionView | null> {
  const [row] = await db
    .select()
    .from(agentVersions)
    .where(and(eq(agentVersions.agentId, agentId), eq(agentVersions.version, version)));
  return row ? versionView(row, whole) : null;
}

/**
 * Agents made before versions began (`version` 0) get their version 1 at start-up: their
 * behaviour as it is, by the service, noted so. Idempotent (several processes may start at once).
 */
export async function giveFirstVersions(db: Db): Promise<number> {
  let given = 0;
  for (;;) {
    const rows = await db.select().from(agents).where(eq(agents.version, 0)).limit(200);
    if (rows.length === 0) return given;
    await db.transaction(async (tx) => {
      for (const row of rows) {
        const config = configOf(row);
        await tx
          .insert(agentVersions)
          .values({ agentId: row.id, version: 1, config, digest: digestOf(row.id, config), createdBy: { type: 'system' }, note: 'The agent as it was when versions began', createdAt: row.updatedAt })
          .onConflictDoNothing();
        await tx.update(agents).set({ version: 1 }).where(and(eq(agents.id, row.id), eq(agents.version, 0)));
      }
    });
    given += rows.length;
  }
}
