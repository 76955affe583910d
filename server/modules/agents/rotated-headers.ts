import type { StoredTool } from '../../../db/schema';
import { UnreadableSecret } from '../../platform/sealed';
import { openMcpHeaderValues } from '../secrets/stored';

// What an agent's audit record says of its MCP header values (docs/audit.md): the view masks
// every value as "********", so a value swapped for another under the same name changed nothing
// a view can show, and the record said `changes: null`. The values are compared in plain here
// (the stored ones opened) and each swapped one is recorded as rotated, like a rotated tool
// secret: `{"tools.<tool>.headers.<header>": [null, "rotated"]}`, never a value.

/**
 * The header values of MCP tools present before and after whose value changed (names compared
 * ignoring case, as they are stored). `before`: the tools as stored (sealed); `after`: in plain.
 * A stored value that cannot be opened counts as changed when a value is given for it.
 */
export function rotatedHeaders(agentId: string, before: readonly StoredTool[], after: readonly StoredTool[]): Record<string, [null, 'rotated']> {
  const out: Record<string, [null, 'rotated']> = {};
  for (const tool of after) {
    if (tool.type !== 'mcp') continue;
    const old = before.find((t) => t.type === 'mcp' && t.name.toLowerCase() === tool.name.toLowerCase());
    if (!old || old.type !== 'mcp' || Object.keys(old.headers).length === 0) continue;
    const opened = openOrNull(agentId, old);
    for (const [name, value] of Object.entries(tool.headers)) {
      const key = Object.keys(old.headers).find((h) => h.toLowerCase() === name.toLowerCase());
      if (key === undefined) continue; // a new header: the view's names show it
      if (opened === null || opened[key] !== value) out[`tools.${tool.name}.headers.${name}`] = [null, 'rotated'];
    }
  }
  return out;
}

function openOrNull(agentId: string, tool: Extract<StoredTool, { type: 'mcp' }>): Record<string, string> | null {
  try {
    return openMcpHeaderValues(agentId, tool);
  } catch (err) {
    if (err instanceof UnreadableSecret) return null;
    throw err;
  }
}
