import { createHash } from 'node:crypto';
import { createMCPClient, type CallToolResult, type ListToolsResult, type MCPClient } from '@ai-sdk/mcp';
import { jsonSchema, tool, type Tool } from 'ai';
import type { StoredMcpTool } from '../../../db/schema';
import type { CallLimits } from './call-limits';
import { connectionError, TOOL_MAX_BYTES, TOOL_TIMEOUT_MS } from './http-tool';
import { guardedMcpFetch, McpFetchRefused } from './mcp-fetch';

// An agent's MCP tool (docs/api.md, "Agents"; docs/executions.md, "MCP tools"): a remote MCP
// server the run connects to when it starts, over Streamable HTTP with the AI SDK's MCP client
// (its requests through the SSRF guard: mcp-fetch.ts), whose tools the model is offered as
// `<name>_<tool>` with the server's own JSON Schemas. Like an HTTP tool's, a call is bounded
// (30 s, at most 100 KB of result handed over, the run's per-step and byte limits) and its
// failure is the model's to handle: `{error}`. A server that cannot be reached or listed fails
// the run (McpToolError, `tool_error`). The `headers` are the owner's secrets: sent to the
// server only, never logged, and blanked out of anything the server writes that the model or the
// run's record sees — its tools' names, titles, descriptions and input schemas as well as its
// results and errors (docs/security.md, "Agent tools").

/** Connecting and listing the tools, together. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
/** Tools offered per server, at most (the first listed); pages of tools/list read, at most. */
const MAX_OFFERED = 100;
const MAX_LIST_PAGES = 10;
const MAX_DESCRIPTION = 4_000;
const MAX_ERROR = 1_000;
/** Model-facing tool names: what providers accept. */
const MAX_NAME = 64;

let timeouts = { connectMs: MCP_CONNECT_TIMEOUT_MS, callMs: TOOL_TIMEOUT_MS };

/** Shortens (or restores, with null) the connect and call timeouts, for tests of what happens past them. */
export function setMcpTimeoutsForTests(t: { connectMs?: number; callMs?: number } | null): void {
  timeouts = { connectMs: t?.connectMs ?? MCP_CONNECT_TIMEOUT_MS, callMs: t?.callMs ?? TOOL_TIMEOUT_MS };
}

/** An MCP server the run cannot use: it fails with `tool_error` and this message, which names the tool. */
export class McpToolError extends Error {
  override name = 'McpToolError';
  readonly code = 'tool_error';
}

/** One MCP tool as the model is offered it. */
export interface McpOffered {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpServerTools {
  /** The allowed tools, named `<name>_<tool>` apart from the names in `taken` (which it extends). */
  offer(taken: Set<string>): { name: string; tool: Tool; offered: McpOffered; listedAs: string }[];
  /** Closes the connection; never throws. */
  close(): Promise<void>;
}

type Listed = ListToolsResult['tools'][number];

/** Connects to the server and lists its tools (McpToolError when it cannot; the run's abort rethrown). */
/** `traceparent`: sent with every request to the server (the run's root span: one transport serves all its calls). */
export async function openMcpTools(spec: StoredMcpTool, opts: { signal: AbortSignal; allowPrivate: boolean; limits: CallLimits; traceparent?: string }): Promise<McpServerTools> {
  const { signal, limits } = opts;
  const secrets = Object.values(spec.headers).filter((v) => v.length >= 4);
  const timer = AbortSignal.timeout(timeouts.connectMs);
  const connecting = AbortSignal.any([signal, timer]);
  let client: MCPClient | undefined;
  let listed: Listed[];
  try {
    client = await createMCPClient({
      transport: {
        type: 'http',
        url: spec.url,
        headers: opts.traceparent ? { ...spec.headers, traceparent: opts.traceparent } : spec.headers,
        redirect: 'error',
        fetch: guardedMcpFetch({ allowPrivate: opts.allowPrivate }),
      },
      clientName: 'agent-automation-service',
      initializationOptions: { signal: connecting },
      // Errors outside a request (a notification the server sent that we cannot read): ignored, never logged.
      onUncaughtError: () => {},
    });
    listed = await listAll(client, connecting);
  } catch (err) {
    await client?.close().catch(() => {});
    if (signal.aborted) throw signal.reason ?? err;
    const reason = timer.aborted ? `the server did not answer within ${timeouts.connectMs / 1000} s` : failure(err, 'the server', secrets);
    throw new McpToolError(`The MCP tool '${spec.name}' could not be used: ${reason}`);
  }
  const connected = client;
  const allowed = spec.allowedTools && new Set(spec.allowedTools);
  const tools = listed.filter((t) => !allowed || allowed.has(t.name)).slice(0, MAX_OFFERED);
  return {
    offer(taken) {
      return tools.flatMap((t) => {
        const name = modelName(spec.name, redact(t.name, secrets), taken);
        // (A value that only the name's clean-up spelled out, `a.b` become `a_b`: not offered.)
        if (!name || secrets.some((secret) => name.includes(secret))) return [];
        const description = t.description ?? t.title ?? `The tool ${t.name} of the MCP server ${spec.name}`;
        const offered: McpOffered = {
          name,
          description: redact(description, secrets).slice(0, MAX_DESCRIPTION),
          inputSchema: redactValue({ ...t.inputSchema, type: 'object', properties: t.inputSchema.properties ?? {} }, secrets),
        };
        const execute = async (args: unknown, options: { messages: readonly unknown[] }) => {
          const refusal = limits.admit(options);
          if (refusal) return refusal;
          return limits.handOver(await callMcpTool(connected, t.name, args, signal, secrets));
        };
        const made = tool({ description: offered.description, inputSchema: jsonSchema(offered.inputSchema as Parameters<typeof jsonSchema>[0]), execute });
        return [{ name, tool: made as Tool, offered, listedAs: t.name }];
      });
    },
    close: () => connected.close().catch(() => {}),
  };
}

async function listAll(client: MCPClient, signal: AbortSignal): Promise<Listed[]> {
  const tools: Listed[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools({ ...(cursor !== undefined ? { params: { cursor } } : {}), options: { signal } });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || tools.length >= MAX_OFFERED * 10) break;
  }
  return tools;
}

/**
 * `<name>_<tool>`, in letters, digits, `_` and `-` (others become `_`), at most 64 characters and
 * not among `taken` (ignoring case); else its first 57 characters, `_` and 6 hex of its hash. Null
 * in the unlikely case that is taken too: the tool is not offered.
 */
export function modelName(server: string, remote: string, taken: Set<string>): string | null {
  const full = `${server}_${remote}`;
  const clean = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  const hashed = `${clean.slice(0, MAX_NAME - 7)}_${createHash('sha256').update(full).digest('hex').slice(0, 6)}`;
  for (const name of clean.length <= MAX_NAME ? [clean, hashed] : [hashed]) {
    if (taken.has(name.toLowerCase())) continue;
    taken.add(name.toLowerCase());
    return name;
  }
  return null;
}

/** Calls the tool with a timeout; its result, or `{error}` (a failed call is the model's to handle). The run's abort rethrows. */
async function callMcpTool(client: MCPClient, name: string, args: unknown, signal: AbortSignal, secrets: string[]): Promise<unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return { error: 'Not called: the arguments must be a JSON object' };
  signal.throwIfAborted();
  const timer = AbortSignal.timeout(timeouts.callMs);
  try {
    const result = await client.callTool({ name, arguments: args as Record<string, unknown>, options: { signal: AbortSignal.any([signal, timer]) } });
    return outputOf(result, secrets);
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    if (timer.aborted) return { error: `The MCP tool did not answer within ${timeouts.callMs / 1000} s` };
    return { error: failure(err, 'The MCP server', secrets) };
  }
}

/**
 * What the model gets: `{content}` (and `structuredContent` when the server gave one); over 100
 * KB as JSON, the text of the content cut at 100 KB with `truncated: true`, like an HTTP tool's
 * answer; an `isError` result is `{error: <its text>}`.
 */
function outputOf(result: CallToolResult, secrets: string[]): unknown {
  const content: unknown = 'content' in result ? result.content : [{ type: 'text', text: JSON.stringify(result.toolResult) ?? '' }];
  const parts = Array.isArray(content) ? (content as Array<{ type?: unknown; text?: unknown }>) : [];
  const text = () => parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : JSON.stringify(p))).join('\n');
  if (result.isError) return { error: redact(text(), secrets).slice(0, MAX_ERROR) || 'The MCP tool failed without a message' };
  const output = redactValue({ content, ...('structuredContent' in result && result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) }, secrets);
  if (Buffer.byteLength(JSON.stringify(output)) <= TOOL_MAX_BYTES) return output;
  return { content: cutBytes(redact(text(), secrets), TOOL_MAX_BYTES), truncated: true };
}

/** A safe message for a failed request: what went wrong, never our network's details or a header value. */
function failure(err: unknown, subject: string, secrets: string[]): string {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof McpFetchRefused) return `${subject} ${e.message}`;
    const status = (e as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number') return `${subject} answered HTTP ${status}`;
    const code = (e as { code?: unknown }).code;
    // A JSON-RPC error of the server's own: its message is what it wants the client to know.
    if (typeof code === 'number') return redact(`${subject} answered an error: ${e.message}`, secrets).slice(0, MAX_ERROR);
  }
  const message = connectionError(err, subject);
  if (message !== `${subject} could not be reached`) return message;
  const text = err instanceof Error ? err.message : '';
  // The client's own words (a malformed answer, a missing capability), without URLs or bodies.
  return /^(MCP|Server|Failed|Attempted)/.test(text) && !/https?:/.test(text) ? redact(`${subject} failed: ${text}`, secrets).slice(0, MAX_ERROR) : message;
}

/**
 * Blanks each header value (of 4 characters or more) out of a text the server wrote: it may echo
 * them back. Before any cut to length, so no part of a value is left at the cut.
 */
function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * A JSON value the server wrote (a result, an input schema) with each header value blanked out
 * of every string and object key, and a number that spells one out replaced by `[redacted]`.
 * Walked value by value: blanking the JSON text could also hit a number (a value `4242` in
 * `14242`) and leave text that is no longer JSON.
 */
function redactValue<T>(value: T, secrets: string[]): T {
  if (secrets.length === 0) return value;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'string') return redact(v, secrets);
    if (typeof v === 'number') return secrets.some((secret) => String(v).includes(secret)) ? '[redacted]' : v;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, secrets), x]));
    return v;
  });
  return (text === undefined ? value : JSON.parse(text)) as T;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes (never half a character). */
function cutBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= maxBytes) return text;
  return new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, '');
}
