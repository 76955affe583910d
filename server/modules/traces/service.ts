import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import type { SpanData, SpanName } from '../../../db/schema';
import { notFound } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { traceIdOf } from '../vocabulary/trace-ids';
import type { SpanView, TraceView } from './schemas';

// The trace API (docs/traces.md): an execution's spans, read in one statement with the execution
// that owns them (another workspace's or environment's execution is not found), in start order.

type Scope = { workspaceId: string; environment: string };
type Attributes = SpanView['attributes'];

export interface SpanRow {
  span_id: string;
  parent_id: string | null;
  name: SpanName;
  started_at: Date | string;
  ended_at: Date | string;
  status: 'ok' | 'error';
  error: { code: string; message: string } | string | null;
  data: SpanData | string;
  cost_usd: string | null;
  /** The root's: the model calls' costs summed (null when one has no price). */
  total_usd: string | null;
}

export interface Found {
  id: string;
  trace_id: string | null;
  agent_id: string;
  agent_name: string | null;
  /** The version of the agent the run ran (null: a run from before versions). */
  agent_version: number | null;
  conversation_id: string;
  environment: string;
  status: string;
  spans: SpanRow[] | string | null;
  /** What scorers said of the run (docs/evals.md); null until scored. */
  scores: Record<string, { score: number | null; pass: boolean | null; reason: string }> | string | null;
}

const parsed = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const iso = (v: Date | string) => new Date(v).toISOString();
/** `provider/model` → its two parts (the sandbox is ours). */
const split = (model: string) => {
  const at = model.indexOf('/');
  return at < 0 ? { provider: model, name: model } : { provider: model.slice(0, at), name: model.slice(at + 1) };
};

/**
 * The execution's trace. `catchUp`: for a running execution, waits until the process running it
 * has written the spans it recorded (engine.ts `catchUp`), then reads again.
 */
export async function getTrace(db: Db, scope: Scope, id: string, catchUp?: (id: string) => Promise<void>): Promise<TraceView> {
  if (!isId('exe', id)) throw notFound('execution', id);
  let found = await readTrace(db, scope, id);
  if (found?.status === 'running' && catchUp) {
    await catchUp(id);
    found = await readTrace(db, scope, id);
  }
  if (!found) throw notFound('execution', id);
  const rows = found.spans ? parsed(found.spans) : [];
  return {
    traceId: traceIdOf({ id: found.id, traceId: found.trace_id }),
    executionId: found.id,
    spans: rows.map((r) => spanView(found, r)),
    scores: found.scores === null ? null : parsed(found.scores),
  };
}

async function readTrace(db: Db, scope: Scope, id: string): Promise<Found | undefined> {
  const [found] = await queryRows<Found>(
    db,
    sql`select e.id, e.trace_id, e.agent_id, a.name as agent_name, e.agent_version, e.conversation_id, e.environment, e.status, e.scores,
        (select json_agg(s order by s.started_at, s.name <> 'execution', s.span_id) from (
          select s.span_id, s.parent_id, s.name, s.started_at, s.ended_at, s.status, s.error, s.data, s.cost_usd::text as cost_usd,
            case when count(*) filter (where s.name = 'model_call' and s.cost_usd is null) over () > 0 then null
              else coalesce(sum(s.cost_usd) filter (where s.name = 'model_call') over (), 0) end::text as total_usd
          from execution_spans s where s.execution_id = e.id) s) as spans
      from executions e left join agents a on a.id = e.agent_id
      where e.id = ${id} and e.workspace_id = ${scope.workspaceId} and e.environment = ${scope.environment}`,
  );
  return found;
}

export function spanView(run: Found, row: SpanRow): SpanView {
  const data = parsed(row.data);
  const startedAt = iso(row.started_at);
  const endedAt = iso(row.ended_at);
  const common = { 'aas.execution.id': run.id, 'aas.environment': run.environment };
  const base = {
    id: row.span_id,
    parentId: row.parent_id,
    name: row.name,
    kind: row.name === 'model_call' || row.name === 'tool_call' ? ('client' as const) : ('internal' as const),
    startedAt,
    endedAt,
    durationMs: Math.max(0, new Date(endedAt).getTime() - new Date(startedAt).getTime()),
    status: row.status,
    error: row.error === null ? null : parsed(row.error),
  };
  const usage = data.usage ? { inputTokens: data.usage.inputTokens, outputTokens: data.usage.outputTokens } : undefined;
  // Content, recorded only when the agent asked for it (docs/traces.md, "Content").
  const content: Attributes = {
    ...(data.system !== undefined ? { 'gen_ai.system_instructions': data.system } : {}),
    ...(data.input !== undefined ? { 'gen_ai.input.messages': data.input } : {}),
    ...(data.output !== undefined ? { 'gen_ai.output.messages': data.output } : {}),
  };
  const tokens: Attributes = usage ? { 'gen_ai.usage.input_tokens': usage.inputTokens, 'gen_ai.usage.output_tokens': usage.outputTokens } : {};
  switch (row.name) {
    case 'execution': {
      const model = split(data.model ?? '');
      return {
        ...base,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': run.agent_id,
          ...(run.agent_name !== null ? { 'gen_ai.agent.name': run.agent_name } : {}),
          ...(run.agent_version != null ? { 'gen_ai.agent.version': String(run.agent_version) } : {}),
          'gen_ai.conversation.id': run.conversation_id,
          'gen_ai.provider.name': model.provider,
          'gen_ai.request.model': model.name,
          ...tokens,
          ...common,
          'aas.execution.status': run.status,
          ...(row.total_usd !== null ? { 'aas.cost.usd': row.total_usd } : {}),
        },
        ...(usage ? { usage } : {}),
        cost: { usd: row.total_usd },
      };
    }
    case 'model_call': {
      const model = split(data.model ?? '');
      return {
        ...base,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': model.provider,
          'gen_ai.request.model': model.name,
          'gen_ai.response.model': model.name,
          'gen_ai.conversation.id': run.conversation_id,
          ...tokens,
          ...(data.finishReason ? { 'gen_ai.response.finish_reasons': [data.finishReason] } : {}),
          ...common,
          'aas.step': data.step ?? 0,
          ...(row.cost_usd !== null ? { 'aas.cost.usd': row.cost_usd } : {}),
          ...content,
        },
        firstTokenMs: data.firstTokenMs ?? null,
        usage: usage ?? { inputTokens: 0, outputTokens: 0 },
        cost: { usd: row.cost_usd },
        ...(data.finishReason ? { finishReason: data.finishReason } : {}),
      };
    }
    case 'tool_call':
      return {
        ...base,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          ...(data.tool ? { 'gen_ai.tool.name': data.tool } : {}),
          ...(data.toolCallId ? { 'gen_ai.tool.call.id': data.toolCallId } : {}),
          ...(data.httpStatus !== undefined ? { 'http.response.status_code': data.httpStatus } : {}),
          ...(data.server !== undefined ? { 'aas.mcp.server': data.server } : {}),
          ...(data.mcpTool !== undefined ? { 'aas.mcp.tool': data.mcpTool } : {}),
          ...common,
          'aas.step': data.step ?? 0,
          ...content,
        },
        ...(data.tool ? { tool: data.tool } : {}),
        ...(data.toolCallId ? { toolCallId: data.toolCallId } : {}),
        ...(data.httpStatus !== undefined ? { httpStatus: data.httpStatus } : {}),
        ...(data.server !== undefined ? { server: data.server } : {}),
      };
    default:
      return { ...base, attributes: { ...common, ...(data.step !== undefined ? { 'aas.step': data.step } : {}) }, ...(data.links ? { links: data.links } : {}) };
  }
}
