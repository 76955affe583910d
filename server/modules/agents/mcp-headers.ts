import type { StoredHttpTool, StoredMcpTool, StoredTool } from '../../../db/schema';
import { ApiError } from '../../platform/errors';
import { shownUrl } from '../secrets/stored';
import { AGENT_LIMITS, MASKED_HEADER } from './schemas';

// The `headers` of an agent's MCP tools (docs/api.md, "Agents"): secrets the runner sends to the
// MCP server with every request (its credentials, typically), so write-only. Checked here when
// an agent is created or updated; shown as "********" in every response and event; and on
// update, "********" stands for the value already stored for that header of the same-named MCP
// tool, so a client can send an agent back as it read it without knowing the values. A stored
// value follows the tool only while its URL keeps the same origin: otherwise whoever may update
// the agent could point the tool at their own server and have it send them the secret. A kept
// value is the stored, sealed one as it is (a header keeps its place: same tool and header names,
// ignoring case): nothing is opened, so an update works even where this server cannot open it.

const L = AGENT_LIMITS;
const invalid = (param: string, message: string) => new ApiError('invalid_parameter', message, { param });

/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/**
 * Names a caller may not set: the hop-by-hop headers, the ones that frame the request, and the
 * ones the MCP transport sets itself (content type, protocol version, session).
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Control characters other than tab: CR and LF would split the header, the others are refused on the wire. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Checks the raw `headers` of `tools.N` before zod parses them (it silently drops a `__proto__`
 * key): a name every object inherits (`__proto__`, `constructor`…) is refused.
 */
export function assertSafeHeaderNames(headers: unknown, param: string): void {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return;
  for (const key of Object.keys(headers)) {
    if (key in Object.prototype) throw invalid(param, `'${param}' cannot have a header named '${key}'`);
  }
}

/** The stored tools of an agent by lower-cased name (what "********" and a URL sent back refer to on update). */
export type StoredTools = Map<string, StoredTool>;

export function storedTools(tools: readonly StoredTool[]): StoredTools {
  return new Map(tools.map((t) => [t.name.toLowerCase(), t]));
}

/** Whether a header map sends "********" for some header, i.e. needs the stored values. */
export const usesMasked = (headers: Record<string, string>) => Object.values(headers).includes(MASKED_HEADER);

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * The headers to store for `tools.N` (param `tools.N.headers`): at most 20, valid and unreserved
 * names (once each, ignoring case), values ≤ 4 KB without line breaks, each sealed by `seal`;
 * "********" replaced by the stored (sealed) value of the same-named MCP tool's header, when there
 * is one and the URL kept its origin.
 */
export function checkHeaders(
  headers: Record<string, string>,
  tool: { name: string; url: string },
  index: number,
  stored: StoredTools | null,
  seal: (name: string, value: string) => string,
): Record<string, string> {
  const param = `tools.${index}.headers`;
  const entries = Object.entries(headers);
  if (entries.length > L.headers.max) throw invalid(param, `'${param}' can have at most ${L.headers.max} headers (it has ${entries.length})`);
  const seen = new Set<string>();
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) throw invalid(param, `'${param}' has an invalid header name '${name.slice(0, 100)}': 1–100 letters, digits or !#$%&'*+.^_\`|~-`);
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) throw invalid(param, `'${param}' cannot set '${name}': the runner sets it, or it concerns the connection only`);
    if (seen.has(lower)) throw invalid(param, `'${param}' names the header '${name}' twice (header names ignore case)`);
    seen.add(lower);
    if (value === MASKED_HEADER) {
      out[name] = keptValue(name, tool, stored, param);
      continue;
    }
    if (CONTROL.test(value)) throw invalid(param, `'${param}': the value of '${name}' cannot contain line breaks or other control characters`);
    const bytes = Buffer.byteLength(value);
    if (bytes > L.headerValue.maxBytes) throw invalid(param, `'${param}': the value of '${name}' must be at most 4 KB (it is ${bytes} bytes)`);
    out[name] = seal(name, value);
  }
  return out;
}

function keptValue(name: string, tool: { name: string; url: string }, stored: StoredTools | null, param: string): string {
  const found = stored?.get(tool.name.toLowerCase());
  const previous = found?.type === 'mcp' ? found : undefined;
  const lower = name.toLowerCase();
  const value = previous && Object.entries(previous.headers).find(([n]) => n.toLowerCase() === lower)?.[1];
  if (value === undefined) {
    throw invalid(param, `'${param}': '${MASKED_HEADER}' keeps the stored value of '${name}', but the agent has no MCP tool '${tool.name}' with that header; send its value`);
  }
  // The origin is what a masked URL keeps: nothing needs opening (the URL given may be the masked one sent back).
  if (!sameOrigin(shownUrl(previous!.url, previous!.maskedUrl), tool.url)) {
    throw invalid(param, `'${param}': '${MASKED_HEADER}' keeps the stored value of '${name}' only while the tool's URL keeps its origin; the URL changed, so send the value again`);
  }
  return value;
}

export type ToolView =
  | (Omit<StoredHttpTool, 'maskedUrl' | 'approval'> & { approval: NonNullable<StoredHttpTool['approval']> })
  | (Omit<StoredMcpTool, 'maskedUrl' | 'headers' | 'approval'> & { headers: Record<string, typeof MASKED_HEADER>; approval: NonNullable<StoredMcpTool['approval']> });

/**
 * A stored tool as responses and events show it, with `url` as the reader may see it (whole or
 * masked: the caller decides, agents/service.ts): MCP header values masked.
 */
export function toolView(tool: StoredTool, url: string): ToolView {
  // Agents stored before approvals have no `approval`: `never`.
  if (tool.type !== 'mcp') {
    return { type: 'http', name: tool.name, description: tool.description, url, method: tool.method, parameters: tool.parameters, approval: tool.approval ?? 'never' };
  }
  const headers = Object.fromEntries(Object.keys(tool.headers).map((name) => [name, MASKED_HEADER] as const));
  return { type: 'mcp', name: tool.name, url, allowedTools: tool.allowedTools ?? null, headers, approval: tool.approval ?? 'never' };
}
