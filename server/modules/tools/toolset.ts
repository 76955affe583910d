import { rootSpanId, toolSpanId, traceparent } from '../vocabulary/trace-ids';
import type { OfferedTool } from '../vocabulary/participants';
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { agents, StoredHttpTool, StoredMcpTool } from '../../../db/schema';
import { allowPrivateUrls } from '../../platform/net/private-urls';
import { UnreadableSecret } from '../../platform/sealed';
import { openMcpTool, openToolSecrets, openUrl, toolUrlPlace, type OpenedToolSecrets } from '../secrets/stored';
import { CallLimits } from './call-limits';
import { callHttpTool } from './http-tool';
import { McpToolError, openMcpTools, type McpOffered, type McpServerTools } from './mcp-tool';
import { SCHEMA_BUDGET_MS, validateArguments } from './schema-pool';

// The tools a run offers the model: the agent's HTTP tools, each call signed and sent by
// callHttpTool, and the tools of its MCP servers (mcp-tool.ts), listed when the run starts.
// Before a call, what a model can make us do is bounded (docs/executions.md, "Tool calls: what
// a model can make us do"):
// - an HTTP tool's arguments must match its `parameters` (checked in the schema pool's threads;
//   an MCP server checks its own);
// - at most MAX_TOOL_CALLS_PER_STEP calls are made per step, the rest refused (call-limits.ts);
// - at most TOOL_RESULT_BUDGET_BYTES of tool results are handed to the model per execution.
// Every refusal, like every failed call, goes back to the model as the tool's result
// `{error}`: it may retry or explain, and the run records it as a tool error.

type AgentRow = typeof agents.$inferSelect;

/** The secrets that sign a call now: the agent's, and the one it replaced while in its 24 h. */
export function activeToolSecrets(secrets: OpenedToolSecrets, now = new Date()): string[] {
  return secrets.previous && secrets.previous.expiresAt > now ? [secrets.current, secrets.previous.secret] : [secrets.current];
}

/**
 * The agent's stored secrets and the URLs that hold credentials, opened once for the run (they
 * are sealed at rest: docs/security.md, "Secrets at rest"). One this server cannot open fails the
 * run as a tool error naming it and why (its key id, the keys held; logged too), before any tool
 * is called.
 */
function opened<T>(open: () => T): T {
  try {
    return open();
  } catch (err) {
    if (err instanceof UnreadableSecret) {
      throw new McpToolError(`The agent's stored tool secrets cannot be opened by this server: ${err.place}: ${err.reason}`);
    }
    throw err;
  }
}

const refused = (error: string) => ({ error });

/** The tools of one run: what the model is offered, what its MCP servers listed, and the connections to close. */
export interface RunTools {
  tools: ToolSet;
  /** The MCP tools offered, as the model sees them (for the test-mode answer cache's key). */
  mcp: McpOffered[];
  /** Every tool offered, by the name the model sees: the agent's tool it comes from, the MCP tool as listed, its parameters (what the run's participants read: approvals, traces). */
  offered: Map<string, OfferedTool>;
  /** Closes the MCP connections; never throws. Call it when the run ends, however it ends. */
  close(): Promise<void>;
}

/**
 * The agent's tools for one execution: call it once per run (the step count and the byte budget
 * are the run's). Connects to the agent's MCP servers and lists their tools first: one that
 * cannot be reached or listed throws McpToolError (the run fails with `tool_error`), the run's
 * own abort rethrows as is.
 */
/** `traceId`: the run's trace, whose spans its tool requests name (`traceparent`: docs/traces.md). */
export async function openTools(agent: AgentRow, executionId: string, signal: AbortSignal, traceId: string): Promise<RunTools> {
  const limits = new CallLimits();
  const tools: ToolSet = {};
  const http = agent.tools.filter((t): t is StoredHttpTool => t.type === 'http').map((spec) => opened(() => ({ ...spec, url: openUrl(toolUrlPlace(agent.id, spec.name), spec.url) })));
  const mcp = agent.tools.filter((t): t is StoredMcpTool => t.type === 'mcp').map((spec) => opened(() => openMcpTool(agent.id, spec)));
  const secrets = http.length > 0 ? opened(() => openToolSecrets(agent)) : null;
  const offered = new Map<string, OfferedTool>();
  for (const spec of http) {
    tools[spec.name] = httpTool(agent, spec, secrets!, { executionId, traceId }, signal, limits);
    offered.set(spec.name, { source: spec.name, parameters: spec.parameters });
  }
  // Every name the model sees, lower-cased: an MCP tool's `<name>_<tool>` must not take one.
  const taken = new Set(http.map((t) => t.name.toLowerCase()));
  const settled = await Promise.allSettled(mcp.map((spec) => openMcpTools(spec, { signal, allowPrivate: allowPrivateUrls(), limits, traceparent: traceparent(traceId, rootSpanId(executionId)) })));
  const servers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    await Promise.all(servers.map((s) => s.close()));
  };
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  const listed = servers.flatMap((server: McpServerTools, i) => server.offer(taken).map((o) => ({ ...o, server: mcp[i]!.name })));
  for (const { name, tool: t, offered: o, listedAs, server } of listed) {
    tools[name] = t;
    offered.set(name, { source: server, mcpTool: listedAs, parameters: o.inputSchema });
  }
  return { tools, mcp: listed.map((o) => o.offered), offered, close };
}

function httpTool(agent: AgentRow, spec: StoredHttpTool, secrets: OpenedToolSecrets, run: { executionId: string; traceId: string }, signal: AbortSignal, limits: CallLimits) {
  const { executionId } = run;
  return tool({
    description: spec.description,
    inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
    execute: async (args: unknown, options) => {
      const refusal = limits.admit(options);
      if (refusal) return refusal;

      const check = await validateArguments(agent.workspaceId, spec.parameters, args, signal);
      if (!check.ok) {
        if (check.reason === 'invalid') return refused(`Not called: the arguments do not match the tool's parameters: ${check.message}`);
        if (check.reason === 'too_slow') return refused(`Not called: the arguments could not be checked against the tool's parameters within ${SCHEMA_BUDGET_MS / 1000} s`);
        return refused('Not called: the server is busy checking tool arguments; try again');
      }

      const result = await callHttpTool(spec, args, {
        secrets: activeToolSecrets(secrets),
        callId: `${executionId}_${options.toolCallId}`,
        // A receiver dedupes by it too (docs/approvals.md: an approved call runs once).
        // The receiver's spans join the run's trace, under this call's span (docs/traces.md).
        headers: { 'idempotency-key': options.toolCallId, traceparent: traceparent(run.traceId, toolSpanId(executionId, options.toolCallId)) },
        signal,
        allowPrivate: allowPrivateUrls(),
      });
      // A failed call goes back to the model as its result: it may retry or explain.
      const output = result.ok ? { status: result.status, body: result.body, ...(result.truncated ? { truncated: true } : {}) } : { error: result.error, status: result.status };
      return limits.handOver(output);
    },
  });
}
