import type { StoredMcpTool, StoredTool } from '../../../db/schema';
import { log } from '../../platform/log';
import { secretsKeyring, UnreadableSecret, type Keyring } from '../../platform/sealed';

// The secrets stored sealed (docs/security.md, "Secrets at rest"), and the place each is bound to:
//
//   webhooks.secret, webhooks.previous_secret       place `webhooks.secret:<webhook id>`
//   agents.tool_secret, agents.previous_tool_secret place `agents.tool_secret:<agent id>`
//   agents.tools[].headers (MCP tools' values)      place `agents.mcp_header:<agent id>:<tool>:<header>`
//
// A secret and the previous one share a place: a rotation moves the sealed value from one column
// to the other in SQL, without opening it. Tool and header names are lower-cased (both are unique
// ignoring case, and "********" on update keeps a value by its name ignoring case). Values are
// sealed when written and opened only where the plaintext is used: the create and rotate answers,
// signing a delivery or a tool call, and the headers sent to an MCP server.

export const webhookSecretPlace = (webhookId: string) => `webhooks.secret:${webhookId}`;
export const toolSecretPlace = (agentId: string) => `agents.tool_secret:${agentId}`;
export const mcpHeaderPlace = (agentId: string, tool: string, header: string) => `agents.mcp_header:${agentId}:${tool.toLowerCase()}:${header.toLowerCase()}`;

/**
 * Opens a stored value; one that cannot be opened (its key is not in SECRETS_KEY, or it was
 * altered) is logged with its place and key id, never a value, and thrown to the caller, which
 * fails that one delivery, run or request — never the process.
 */
function open(keyring: Keyring, place: string, stored: string): string {
  try {
    return keyring.open(place, stored);
  } catch (err) {
    if (err instanceof UnreadableSecret) log.error({ place: err.place, keyId: err.keyId, keyring: keyring.ids }, err.message);
    throw err;
  }
}

export const sealWebhookSecret = (webhookId: string, secret: string) => secretsKeyring().seal(webhookSecretPlace(webhookId), secret);
export const sealToolSecret = (agentId: string, secret: string) => secretsKeyring().seal(toolSecretPlace(agentId), secret);

interface WebhookSecrets {
  id: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The secrets a delivery is signed with now: the webhook's, and the one it replaced while in its 24 h. */
export function webhookSigningSecrets(hook: WebhookSecrets, now = new Date()): string[] {
  const keyring = secretsKeyring();
  const place = webhookSecretPlace(hook.id);
  const secrets = [open(keyring, place, hook.secret)];
  if (hook.previousSecret && hook.previousSecretExpiresAt && hook.previousSecretExpiresAt > now) secrets.push(open(keyring, place, hook.previousSecret));
  return secrets;
}

interface AgentSecrets {
  id: string;
  toolSecret: string;
  previousToolSecret: string | null;
  previousToolSecretExpiresAt: Date | null;
}

/** An agent's tool secrets, opened once for a run: the current one, and the one it replaced while in its 24 h. */
export interface OpenedToolSecrets {
  current: string;
  previous: { secret: string; expiresAt: Date } | null;
}

export function openToolSecrets(agent: AgentSecrets, now = new Date()): OpenedToolSecrets {
  const keyring = secretsKeyring();
  const place = toolSecretPlace(agent.id);
  const expiresAt = agent.previousToolSecretExpiresAt;
  const previous = agent.previousToolSecret && expiresAt && expiresAt > now ? { secret: open(keyring, place, agent.previousToolSecret), expiresAt } : null;
  return { current: open(keyring, place, agent.toolSecret), previous };
}

/** Each header value of `tool` passed through `f` (the names as they are). */
function mapHeaders(tool: StoredMcpTool, f: (name: string, value: string) => string): StoredMcpTool {
  return { ...tool, headers: Object.fromEntries(Object.entries(tool.headers).map(([name, value]) => [name, f(name, value)])) };
}

/** The tools as stored: every MCP header value sealed (the values given are plaintext). */
export function sealMcpHeaders(agentId: string, tools: StoredTool[], keyring: Keyring = secretsKeyring()): StoredTool[] {
  return tools.map((t) => (t.type === 'mcp' ? mapHeaders(t, (name, value) => keyring.seal(mcpHeaderPlace(agentId, t.name, name), value)) : t));
}

/** An MCP tool with its header values opened (what is sent to the server). */
export function openMcpTool(agentId: string, tool: StoredMcpTool, keyring: Keyring = secretsKeyring()): StoredMcpTool {
  return mapHeaders(tool, (name, value) => open(keyring, mcpHeaderPlace(agentId, tool.name, name), value));
}

/** The tools with every MCP header value opened (on update, "********" keeps a stored value). */
export function openMcpHeaders(agentId: string, tools: readonly StoredTool[]): StoredTool[] {
  const keyring = secretsKeyring();
  return tools.map((t) => (t.type === 'mcp' ? openMcpTool(agentId, t, keyring) : t));
}
