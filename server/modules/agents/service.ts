import { audit, changesOf, emitAudited } from '../audit/record';
import { and, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { agents, type StoredTool } from '../../../db/schema';
import type { Actor } from '../actor';
import { ApiError, notFound } from '../../platform/errors';
import { cancelAgentRuns } from '../executions/engine';
import { deleteAgentSchedules } from '../schedules/service';
import { isId, newId } from '../../platform/ids';
import { keysetList, type ListRow } from '../../platform/keyset';
import { assertSafeKeys, METADATA_MAX_KEYS } from '../../platform/metadata';
import { PROVIDERS, parseModel } from '../models/registry';
import { allowPrivateUrls, refusalHint } from '../../platform/net/private-urls';
import { checkUrl, UrlRefused } from '../../platform/net/url-guard';
import type { Page, PageParams } from '../../platform/pagination';
import { newToolSecret } from '../tools/http-tool';
import type { MemberRole } from '../../../db/schema/values';
import { holdsCredentials, URL_MASK } from '../../platform/net/masked-url';
import { isSealed, secretsKeyring, UnreadableSecret } from '../../platform/sealed';
import { openUrl, opens, readsWholeUrls, sealMcpHeader, sealToolSecret, sealUrl, shownUrl, toolSecretPlace, toolUrlPlace, viewedUrl } from '../secrets/stored';
import { assertCompiles } from '../tools/schema-pool';
import { rotatedHeaders } from './rotated-headers';
import { assertSafeHeaderNames, checkHeaders, storedTools, toolView, usesMasked, type StoredTools } from './mcp-headers';
import { MASKED_HEADER } from './schemas';
import { BEHAVIOUR_FIELDS, writeVersion } from './versions';
import { checkOutputSchema } from '../vocabulary/output-schema';
import {
  MAX_PARAMETERS_BYTES,
  type agentSchema,
  type createAgentInput,
  type createdAgentSchema,
  type rotatedAgentSchema,
  type ToolInput,
  type updateAgentInput,
} from './schemas';

// Agents (docs/api.md, "Agents"): create, list, read, update, delete, in the caller's workspace and
// environment; another workspace's or environment's agent, and a deleted one, is not found.
// zod (schemas.ts) has checked shapes and bounds; here: the model, tool names, tool URLs (the
// SSRF guard) and tool JSON Schemas (compiled with ajv in the schema pool's threads), and what
// zod cannot see in the raw input.

// What the API answers is what schemas.ts documents: the view types are inferred from it.
export type AgentView = z.infer<typeof agentSchema>;
export type CreatedAgentView = z.infer<typeof createdAgentSchema>;
export type RotatedAgentView = z.infer<typeof rotatedAgentSchema>;
export type CreateAgentInput = z.infer<typeof createAgentInput>;
/** The fields of a PATCH (absent: unchanged). */
export type UpdateAgentInput = Omit<z.infer<typeof updateAgentInput>, 'id'>;
export type DeletedAgentView = { id: string; deleted: true };

/** Whose agents: an Actor fits. */
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;
/** Who reads them: an Actor fits; its kind and role decide whether tool URLs are shown whole (`readsWholeUrls`). */
type Reader = Owner & { kind?: 'key' | 'user'; role?: MemberRole };
type AgentRow = typeof agents.$inferSelect;

const invalid = (param: string, message: string) => new ApiError('invalid_parameter', message, { param });

// ---- views ----

/** The listed columns: everything but the tool secrets (never in a response after creation or rotation). */
const { toolSecret: _secret, previousToolSecret: _previous, previousToolSecretExpiresAt: _expires, deletedAt: _deleted, ...viewColumns } = getTableColumns(agents);

/** A rotated-out tool secret keeps signing alongside the new one this long (like a webhook's). */
export const PREVIOUS_TOOL_SECRET_TTL_MS = 24 * 3600 * 1000;

// The agents of a workspace and environment that are not deleted, newest first (index agents_list_idx).
const agentList = keysetList({
  name: 'agents',
  prefix: 'agt',
  table: agents,
  columns: viewColumns,
  where: isNull(agents.deletedAt),
});

/**
 * The agent as the API shows it. `whole`: tool URLs whole (for whoever may change the agent: the
 * caller decides) — else masked, as viewers, events and the audit log see them (docs/security.md,
 * "Secrets at rest"); nothing is opened for a masked view.
 */
export function agentView(row: ListRow<typeof viewColumns> | AgentRow, whole: boolean): AgentView {
  const url = (t: StoredTool) => (whole ? viewedUrl(toolUrlPlace(row.id, t.name), t.url, t.maskedUrl) : shownUrl(t.url, t.maskedUrl));
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    model: row.model,
    instructions: row.instructions,
    // MCP header values are write-only: every response and event shows them masked.
    tools: row.tools.map((t) => toolView(t, url(t))),
    temperature: row.temperature,
    maxSteps: row.maxSteps,
    timeoutSeconds: row.timeoutSeconds,
    maxTotalTokens: row.maxTotalTokens,
    approvalTimeoutSeconds: row.approvalTimeoutSeconds,
    traceContent: row.traceContent,
    outputSchema: row.outputSchema,
    metadata: row.metadata,
    version: row.version,
    labels: labelsView(row),
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The agent's labels with the versions they point at now (one following the latest shows the latest). */
export function labelsView(row: Pick<AgentRow, 'version' | 'labels'>): Record<string, number> {
  return Object.fromEntries(Object.entries(row.labels).map(([label, version]) => [label, version ?? row.version]));
}

// ---- checks ----

interface Visit {
  value: unknown;
  /** The first three keys of the path (enough to tell `tools.N.parameters`), shared below that. */
  head: readonly string[];
}

/**
 * What zod cannot see in the raw input, checked before it parses (a middleware of each
 * procedure that takes an agent): zod silently drops a `__proto__` key, and keys are no field
 * of their own. Refused: a metadata key named like an Object.prototype property or outside
 * 1–40 characters (param `metadata`); a `__proto__` key anywhere in a tool's `parameters`.
 * (Text PostgreSQL cannot store — NUL, a lone surrogate — is refused before, on every procedure:
 * server/api/trpc/init.ts.)
 */
export function assertSafeAgentInput(raw: unknown): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  assertSafeKeys(raw, 'metadata');
  const metadata = (raw as Record<string, unknown>).metadata;
  if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
    for (const key of Object.keys(metadata)) {
      if (key.length < 1 || key.length > 40) throw invalid('metadata', "'metadata' keys must be 1–40 characters");
    }
    if (Object.keys(metadata).length > METADATA_MAX_KEYS) throw invalid('metadata', `'metadata' can have at most ${METADATA_MAX_KEYS} keys`);
  }
  // An MCP tool's header names: zod drops a `__proto__` key of a record without a word.
  const tools = (raw as Record<string, unknown>).tools;
  if (Array.isArray(tools)) {
    tools.forEach((tool: unknown, i) => {
      if (tool !== null && typeof tool === 'object') assertSafeHeaderNames((tool as Record<string, unknown>).headers, `tools.${i}.headers`);
    });
  }
  // Iterative walk: no input is nested deeply enough to overflow the stack. It runs on the event
  // loop over bodies of up to 1 MiB of schemas, so paths are not copied below their third key.
  const stack: Visit[] = [{ value: raw, head: [] }];
  while (stack.length > 0) {
    const { value, head } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    // The field a bad key is reported on: the tool's `parameters` (storable text was checked above).
    const inParameters = (head[0] === 'tools' && head[2] === 'parameters') || head[0] === 'outputSchema';
    for (const key of Object.keys(value)) {
      if (key === '__proto__' && inParameters) {
        const param = head[0] === 'outputSchema' ? 'outputSchema' : head.join('.');
        throw invalid(param, `'${param}' cannot have a key named '__proto__'`);
      }
      stack.push({ value: (value as Record<string, unknown>)[key], head: head.length < 3 ? [...head, key] : head });
    }
  }
}

function checkModel(model: string): void {
  if (parseModel(model)) return;
  const provider = model.includes('/') ? model.slice(0, model.indexOf('/')) : '';
  const known = (PROVIDERS as readonly string[]).includes(provider);
  throw invalid(
    'model',
    known
      ? `'model' must be '${provider}/<model id>' with no spaces, at most 200 characters`
      : `'model' must be 'provider/model' with a provider among ${PROVIDERS.join(', ')}`,
  );
}

// JSON Schemas of tool parameters are compiled with ajv (draft 2020-12, or draft-07 when the
// schema says so) in the schema pool's threads, never on the event loop: a schema that takes
// longer than its budget is refused, and a workspace with too many waiting is asked to retry.
async function checkParameters(owner: string, parameters: Record<string, unknown>, param: string): Promise<void> {
  const bytes = Buffer.byteLength(JSON.stringify(parameters));
  if (bytes > MAX_PARAMETERS_BYTES) throw invalid(param, `'${param}' must be at most 16 KB as JSON (it is ${bytes} bytes)`);
  if (parameters.type !== 'object') throw invalid(param, `'${param}' must be a JSON Schema with "type": "object"`);
  await assertCompiles(owner, parameters, param);
}

/**
 * A tool's stored URL kept on update (the stored tool of the same name, `previous`): when the URL
 * given is the one it was shown masked (an event, a viewer's page), or the same URL whole. Its
 * sealed value stays as it is (same place: the tool's name ignoring case), so the audit log sees
 * no change and nothing needs opening in the first case. Null: the URL given is new.
 */
function keptUrl(agentId: string, url: string, previous: StoredTool | undefined): { url: string; masked: string } | null {
  if (!previous || !isSealed(previous.url)) return null;
  const masked = shownUrl(previous.url, previous.maskedUrl);
  if (url === masked) return { url: previous.url, masked };
  try {
    if (openUrl(toolUrlPlace(agentId, previous.name), previous.url) === url) return { url: previous.url, masked };
  } catch (err) {
    if (!(err instanceof UnreadableSecret)) throw err;
  }
  return null;
}

/**
 * The tools as stored: unique names (ignoring case), compilable schemas, URLs we may call (sealed
 * when they hold a credential), MCP headers (mcp-headers.ts; sealed). `stored`: the agent's tools,
 * on update (what "********" and URLs sent back keep). The schemas compile together (in the
 * pool's threads); the first refused one by position is reported.
 */
async function checkTools(owner: string, agentId: string, tools: ToolInput[], stored: StoredTools | null = null): Promise<StoredTool[]> {
  const seen = new Map<string, number>();
  for (const [i, tool] of tools.entries()) {
    const name = tool.name.toLowerCase();
    const first = seen.get(name);
    if (first !== undefined) {
      throw invalid(`tools.${i}.name`, `Tool names must be unique: 'tools.${i}.name' repeats the name of tools.${first} ('${tool.name}')`);
    }
    seen.set(name, i);
  }
  const keyring = secretsKeyring();
  const headers = tools.map((tool, i) =>
    tool.type === 'mcp' ? checkHeaders(tool.headers, tool, i, stored, (name, value) => sealMcpHeader(agentId, tool.name, name, value, keyring)) : null,
  );
  const schemas = await Promise.allSettled(tools.map((tool, i) => (tool.type === 'http' ? checkParameters(owner, tool.parameters, `tools.${i}.parameters`) : null)));
  const refused = schemas.find((check) => check.status === 'rejected');
  if (refused) throw refused.reason;
  const kept = tools.map((tool) => keptUrl(agentId, tool.url, stored?.get(tool.name.toLowerCase())));
  // Resolved together; the first refused URL (by position) is the one reported. A kept URL was
  // checked when it was written (and is again at each call).
  const checks = await Promise.allSettled(tools.map((tool, i) => (kept[i] ? null : checkUrl(tool.url, { allowPrivate: allowPrivateUrls() }))));
  for (const [i, check] of checks.entries()) {
    if (check.status === 'fulfilled') continue;
    if (check.reason instanceof UrlRefused) throw invalid(`tools.${i}.url`, `'tools.${i}.url' ${check.reason.message}${refusalHint(check.reason.reason)}`);
    throw check.reason;
  }
  return tools.map((t, i) => {
    const { url, masked } = kept[i] ?? sealUrl(toolUrlPlace(agentId, t.name), t.url, keyring);
    return t.type === 'http'
      ? { type: 'http', name: t.name, description: t.description, url, maskedUrl: masked, method: t.method, parameters: t.parameters, approval: t.approval }
      : {
          type: 'mcp',
          name: t.name,
          url,
          maskedUrl: masked,
          allowedTools: t.allowedTools && [...new Set(t.allowedTools)],
          headers: headers[i]!,
          approval: typeof t.approval === 'object' ? { tools: [...new Set(t.approval.tools)] } : t.approval,
        };
  });
}

// ---- operations ----

const owned = (owner: Owner, id: string) =>
  and(eq(agents.id, id), eq(agents.workspaceId, owner.workspaceId), eq(agents.environment, owner.environment), isNull(agents.deletedAt));

/** The agent's row (its tool secret included), or null when it is not the owner's or is deleted. */
export async function findAgent(db: Db, owner: Owner, id: string): Promise<AgentRow | null> {
  if (!isId('agt', id)) return null;
  const [row] = await db.select().from(agents).where(owned(owner, id));
  return row ?? null;
}

/** What an agent's audit records show of it (its view: MCP header values masked, never the tool secret). */
const AGENT_AUDITED = ['name', 'description', 'model', 'instructions', 'tools', 'temperature', 'maxSteps', 'timeoutSeconds', 'maxTotalTokens', 'approvalTimeoutSeconds', 'traceContent', 'outputSchema', 'metadata'] as const;

export async function createAgent(db: Db, actor: Owner, input: CreateAgentInput, now = new Date()): Promise<CreatedAgentView> {
  checkModel(input.model);
  if (input.outputSchema !== null) checkOutputSchema(input.outputSchema);
  const id = newId('agt');
  // The tool secret, MCP header values and URLs holding credentials are stored sealed (docs/security.md, "Secrets at rest").
  const tools = await checkTools(actor.workspaceId, id, input.tools);
  const toolSecret = newToolSecret();
  // The agent and its `agent.created` event commit together (the event never carries the tool secret).
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(agents)
      .values({
        id,
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        name: input.name,
        description: input.description,
        model: input.model,
        instructions: input.instructions,
        tools,
        temperature: input.temperature,
        maxSteps: input.maxSteps,
        timeoutSeconds: input.timeoutSeconds,
        maxTotalTokens: input.maxTotalTokens,
        approvalTimeoutSeconds: input.approvalTimeoutSeconds,
        traceContent: input.traceContent,
        outputSchema: input.outputSchema,
        metadata: input.metadata,
        version: 1,
        toolSecret: sealToolSecret(id, toolSecret),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    // Its version 1 (docs/versions.md), with the agent.
    await writeVersion(tx, row!, actor, input.versionNote ?? null);
    // The event and the audit record show URLs masked; the caller, who wrote them, gets them whole.
    const view = agentView(row!, false);
    await emitAudited(tx, actor, 'agent.created', view, actor, { action: 'agent.created', target: { type: 'agent', id }, changes: changesOf(null, view, AGENT_AUDITED) });
    return { ...agentView(row!, true), toolSecret };
  });
}

const wholeFor = (actor: Reader) => readsWholeUrls(actor, 'agents:write');

export async function listAgents(db: Db, actor: Reader, params: PageParams): Promise<Page<AgentView>> {
  const page = await agentList.page(db, actor, params);
  const whole = wholeFor(actor);
  return { ...page, data: page.data.map((row) => agentView(row, whole)) };
}

export async function getAgent(db: Db, actor: Reader, id: string): Promise<AgentView> {
  const row = await findAgent(db, actor, id);
  if (!row) throw notFound('agent', id);
  return agentView(row, wholeFor(actor));
}

/** Whether some tool's stored URL changed where the masked views cannot show it (its credential): a kept URL keeps its sealed value. */
function hiddenUrlChanged(before: readonly StoredTool[], after: readonly StoredTool[]): boolean {
  const urls = (tools: readonly StoredTool[]) => JSON.stringify(tools.map((t) => [t.name.toLowerCase(), t.url]));
  return urls(before) !== urls(after);
}

/** The MCP header values given in plain (those kept with "********" left out): what `rotatedHeaders` compares. */
function givenHeaders(tools: ToolInput[], stored: StoredTool[]): StoredTool[] {
  return stored.map((t, i) => {
    const given = tools[i]!;
    if (t.type !== 'mcp' || given.type !== 'mcp') return t;
    return { ...t, headers: Object.fromEntries(Object.entries(given.headers).filter(([, v]) => v !== MASKED_HEADER)) };
  });
}

/** Changes the given fields only (`tools` and `metadata` are replaced whole); `{}` changes nothing. */
export async function updateAgent(db: Db, actor: Owner | Actor, id: string, input: UpdateAgentInput, now = new Date()): Promise<AgentView> {
  const changes: Partial<typeof agents.$inferInsert> = {};
  /** The new tools with their MCP header values in plain (to tell a swapped value in the audit record). */
  let plainTools: StoredTool[] | undefined;
  const { versionNote: _note, ...fields } = input;
  for (const field of ['name', 'description', 'instructions', 'temperature', 'maxSteps', 'timeoutSeconds', 'maxTotalTokens', 'approvalTimeoutSeconds', 'traceContent', 'metadata'] as const) {
    if (fields[field] !== undefined) Object.assign(changes, { [field]: fields[field] });
  }
  if (input.model !== undefined) {
    checkModel(input.model);
    changes.model = input.model;
  }
  if (input.outputSchema !== undefined) changes.outputSchema = input.outputSchema === null ? null : checkOutputSchema(input.outputSchema);
  if (input.tools !== undefined) {
    // "********" as an MCP header value, and a URL holding a credential (whole, or masked as it
    // was shown), may keep what is stored: read the agent's tools for them. A kept value is copied
    // sealed, never opened (a server that cannot open it still updates the agent); a sealed URL is
    // opened only to compare it with the one given.
    const masked = input.tools.some((t) => t.type === 'mcp' && usesMasked(t.headers));
    const keeps = masked || input.tools.some((t) => t.url.includes(URL_MASK) || holdsCredentials(t.url));
    const current = keeps ? await findAgent(db, actor, id) : null;
    if (masked && !current) throw notFound('agent', id);
    changes.tools = await checkTools(actor.workspaceId, id, input.tools, current && storedTools(current.tools));
    plainTools = givenHeaders(input.tools, changes.tools);
  }
  if (Object.keys(changes).length === 0) return getAgent(db, actor, id);
  if (!isId('agt', id)) throw notFound('agent', id);
  return db.transaction(async (tx) => {
    // The agent as it was (locked until the commit): the audit record shows what changed.
    const [before] = await tx.select().from(agents).where(owned(actor, id)).for('update');
    if (!before) throw notFound('agent', id);
    const [updated] = await tx
      .update(agents)
      .set({ ...changes, updatedAt: now })
      .where(owned(actor, id))
      .returning();
    if (!updated) throw notFound('agent', id);
    let row = updated;
    const [was, shown] = [agentView(before, false), agentView(row, false)];
    const changed = { ...changesOf(was, shown, AGENT_AUDITED), ...(plainTools ? rotatedHeaders(id, before.tools, plainTools) : {}) };
    // A credential changed under the mask: the record says the tools changed, masked.
    if (!changed.tools && hiddenUrlChanged(before.tools, row.tools)) changed.tools = [was.tools, shown.tools];
    // A change of its behaviour is a new version (docs/versions.md); a rename, metadata or nothing changed is none.
    if (Object.keys(changed).some((k) => (BEHAVIOUR_FIELDS as readonly string[]).includes(k.split('.')[0]!))) {
      const [versioned] = await tx.update(agents).set({ version: before.version + 1 }).where(eq(agents.id, id)).returning();
      row = versioned!;
      await writeVersion(tx, row, actor, input.versionNote ?? null);
      changed.version = [before.version, row.version];
    }
    const view = agentView(row, false);
    await emitAudited(tx, actor, 'agent.updated', view, actor, { action: 'agent.updated', target: { type: 'agent', id }, changes: changed });
    return agentView(row, wholeFor(actor));
  });
}

/**
 * A new tool secret; the current one keeps signing alongside it for 24 h (an older previous one
 * stops at once). The agent changed, so `agent.updated` is emitted, without any secret.
 */
export async function rotateToolSecret(db: Db, actor: Owner | Actor, id: string, now = new Date()): Promise<RotatedAgentView> {
  if (!isId('agt', id)) throw notFound('agent', id);
  const toolSecret = newToolSecret();
  return db.transaction(async (tx) => {
    const [current] = await tx.select({ toolSecret: agents.toolSecret }).from(agents).where(owned(actor, id)).for('update');
    if (!current) throw notFound('agent', id);
    // The sealed current secret moves to `previous_tool_secret` as it is (both share the row's
    // place) — unless this server cannot open it (its key is no longer held): kept, it would fail
    // every call for 24 h, so it stops at once (docs/security.md, "A wrong key").
    const keep = opens(toolSecretPlace(id), current.toolSecret);
    const expires = keep ? new Date(now.getTime() + PREVIOUS_TOOL_SECRET_TTL_MS) : now;
    const [row] = await tx
      .update(agents)
      .set({ previousToolSecret: keep ? sql`${agents.toolSecret}` : null, previousToolSecretExpiresAt: keep ? expires : null, toolSecret: sealToolSecret(id, toolSecret), updatedAt: now })
      .where(owned(actor, id))
      .returning();
    if (!row) throw notFound('agent', id);
    const view = agentView(row, false);
    await emitAudited(tx, actor, 'agent.updated', view, actor, { action: 'agent.tool_secret_rotated', target: { type: 'agent', id }, changes: { toolSecret: [null, 'rotated'] } });
    return { ...agentView(row, wholeFor(actor)), toolSecret, previousToolSecretExpiresAt: expires.toISOString() };
  });
}

/** Deletes the agent and its schedules and cancels its queued and running executions, with their events, in one transaction. */
export async function deleteAgent(db: Db, actor: Actor, id: string, now = new Date()): Promise<DeletedAgentView> {
  if (!isId('agt', id)) throw notFound('agent', id);
  return db.transaction(async (tx) => {
    const [row] = await tx.update(agents).set({ deletedAt: now }).where(owned(actor, id)).returning();
    if (!row) throw notFound('agent', id);
    // Its executions' `execution.cancelled` events come first, then the agent's `agent.deleted`;
    // each cancel is audited as the deleter's, saying the deletion caused it.
    const cancelled = await cancelAgentRuns(tx, row.id);
    for (const c of cancelled) {
      await audit(tx, actor, { action: 'execution.cancelled', target: { type: 'execution', id: c.id }, changes: { status: [c.from, 'cancelled'], cause: [null, 'agent.deleted'] } });
    }
    // Its schedules go with it (their `schedule.deleted` events before the agent's).
    await deleteAgentSchedules(tx, actor, row.id);
    await emitAudited(tx, actor, 'agent.deleted', agentView(row, false), actor, { action: 'agent.deleted', target: { type: 'agent', id: row.id }, changes: { name: [row.name, null] } });
    return { id: row.id, deleted: true as const };
  });
}
