import type { StoredMcpTool } from '../../../db/schema';
import type { MemberRole } from '../../../db/schema/values';
import { log } from '../../platform/log';
import { maskUrl, URL_MASK } from '../../platform/net/masked-url';
import { isSealed, secretsKeyring, UnreadableSecret, type Keyring } from '../../platform/sealed';
import { roleAllows } from '../vocabulary/roles';
import type { Scope } from '../vocabulary/scopes';

// The secrets stored sealed (docs/security.md, "Secrets at rest"), and the place each is bound to:
//
//   webhooks.secret, webhooks.previous_secret       place `webhooks.secret:<webhook id>`
//   agents.tool_secret, agents.previous_tool_secret place `agents.tool_secret:<agent id>`
//   agents.tools[].headers (MCP tools' values)      place `agents.mcp_header:<agent id>:<tool>:<header>`
//   webhooks.url (a URL holding a credential)       place `webhooks.url:<webhook id>`
//   agents.tools[].url (idem, HTTP and MCP tools)   place `agents.tool_url:<agent id>:<tool>`
//
// A secret and the previous one share a place: a rotation moves the sealed value from one column
// to the other in SQL, without opening it. Tool and header names are lower-cased (both are unique
// ignoring case, and "********" on update keeps a value by its name ignoring case). Values are
// sealed when written and opened only where the plaintext is used: the create and rotate answers,
// signing a delivery or a tool call, and the headers sent to an MCP server. A URL is sealed only
// when it holds a credential (server/platform/net/masked-url.ts); beside it is stored its masked
// form, which is what views show to whoever may not manage the resource (never opened for them).

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

export const webhookUrlPlace = (webhookId: string) => `webhooks.url:${webhookId}`;
export const toolUrlPlace = (agentId: string, tool: string) => `agents.tool_url:${agentId}:${tool.toLowerCase()}`;

/** Whether a stored value opens here (logged when it does not): a rotation keeps as "previous" only a secret that does. */
export function opens(place: string, stored: string): boolean {
  try {
    open(secretsKeyring(), place, stored);
    return true;
  } catch (err) {
    if (err instanceof UnreadableSecret) return false;
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

/** An MCP header value as stored: sealed (the value given is plaintext). */
export const sealMcpHeader = (agentId: string, tool: string, header: string, value: string, keyring: Keyring = secretsKeyring()) =>
  keyring.seal(mcpHeaderPlace(agentId, tool, header), value);

/** An MCP tool's header values, opened. */
export function openMcpHeaderValues(agentId: string, tool: StoredMcpTool, keyring: Keyring = secretsKeyring()): Record<string, string> {
  return mapHeaders(tool, (name, value) => open(keyring, mcpHeaderPlace(agentId, tool.name, name), value)).headers;
}

/** An MCP tool with its URL and header values opened (what the runner connects to and sends). */
export function openMcpTool(agentId: string, tool: StoredMcpTool, keyring: Keyring = secretsKeyring()): StoredMcpTool {
  return { ...tool, headers: openMcpHeaderValues(agentId, tool, keyring), url: open(keyring, toolUrlPlace(agentId, tool.name), tool.url) };
}

// ---- URLs that are credentials ----

/** A URL as stored: sealed for `place` when it holds a credential, else as given; and its masked form. */
export function sealUrl(place: string, url: string, keyring: Keyring = secretsKeyring()): { url: string; masked: string } {
  const masked = maskUrl(url);
  return { url: masked === url ? url : keyring.seal(place, url), masked };
}

/** The whole URL of a stored one (opened when sealed; UnreadableSecret, logged, when it cannot be). */
export function openUrl(place: string, stored: string, keyring: Keyring = secretsKeyring()): string {
  return open(keyring, place, stored);
}

/** What someone who may not manage the resource sees of a stored URL (nothing is opened). */
export function shownUrl(stored: string, masked: string | null | undefined): string {
  if (masked !== null && masked !== undefined) return masked;
  // A row of an older version, before the start-up filled it: plain text.
  return isSealed(stored) ? URL_MASK : maskUrl(stored);
}

/**
 * The whole URL for a view, or — when this server cannot open it — the masked one (a list must
 * still list; the log names the place): a client that sends it back keeps the stored URL.
 */
export function viewedUrl(place: string, stored: string, masked: string | null | undefined): string {
  if (!isSealed(stored)) return stored;
  try {
    return open(secretsKeyring(), place, stored);
  } catch (err) {
    if (err instanceof UnreadableSecret) return shownUrl(stored, masked);
    throw err;
  }
}

/**
 * Who reads a resource's URLs whole: an API key (it holds the resource's scope), and a member
 * whose role may change the resource (docs/teams.md); the others — viewers, and developers for
 * webhooks — see them masked, as events and the audit log do.
 */
export function readsWholeUrls(reader: { kind?: 'key' | 'user'; role?: MemberRole }, scope: Scope): boolean {
  if (reader.kind === 'key') return true;
  return reader.kind === 'user' && reader.role !== undefined && roleAllows(reader.role, { scope }, 'mutation');
}
