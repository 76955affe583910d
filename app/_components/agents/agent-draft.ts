import { z } from 'zod';
import type { Agent } from '@/app/_lib/types';
import {
  AGENT_LIMITS,
  createAgentInput,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DEFAULT_MAX_STEPS,
  DEFAULT_MODEL,
  DEFAULT_TIMEOUT_SECONDS,
  MASKED_HEADER,
  TOOL_METHODS,
} from '@/server/modules/agents/schemas';

// The agent form's values as the user types them (strings), and the schema that checks them:
// the text becomes the request body (numbers, nulls, parsed JSON), which the server's own
// createAgentInput then validates, bounds included (AGENT_LIMITS). The messages below replace
// zod's where the schema has none of its own. What needs more than a shape (the provider, the
// tool URLs, duplicate tool names, the JSON Schemas themselves) the server checks on submit.
// A tool's draft has the fields of both kinds (HTTP tool, MCP server), so one field array holds
// them; its `type` decides which become the body. An MCP tool's header values are never shown
// (the server answers "********"): a header saved before is `stored`, and left empty it is sent
// as "********", which keeps its value. Approval: an HTTP tool's calls never or always wait for
// a person; an MCP server's never, always, or those of the tools listed (`tools`).

export { AGENT_LIMITS, DEFAULT_MODEL };
export const METHODS = TOOL_METHODS;
export type Method = (typeof METHODS)[number];

export interface HeaderDraft {
  name: string;
  /** What the user typed; for a stored header, empty keeps the saved value. */
  value: string;
  /** Saved before: its value is set on the server, and never shown. */
  stored: boolean;
}

/** Which calls of a tool wait for a person's decision; `tools` (MCP only): those of `approvalTools`. */
export type ApprovalChoice = 'never' | 'always' | 'tools';

export interface ToolDraft {
  type: 'http' | 'mcp';
  name: string;
  url: string;
  /** HTTP tools. */
  description: string;
  method: Method;
  parameters: string;
  /** MCP tools: tool names, one per line (empty: every tool); the headers sent to the server. */
  allowedTools: string;
  headers: HeaderDraft[];
  approval: ApprovalChoice;
  /** MCP tools, with `approval: tools`: the tools whose calls need approval, one per line or comma-separated. */
  approvalTools: string;
}

export interface AgentDraft {
  name: string;
  description: string;
  model: string;
  instructions: string;
  temperature: string;
  maxSteps: string;
  timeoutSeconds: string;
  maxTotalTokens: string;
  approvalTimeoutSeconds: string;
  /** Whether its runs' traces carry their content (messages, tool arguments and results): off by default. */
  traceContent: boolean;
  tools: ToolDraft[];
}

const EXAMPLE_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to look up' } },
  required: ['query'],
};

export function newTool(): ToolDraft {
  return { type: 'http', name: '', description: '', url: 'https://', method: 'POST', parameters: JSON.stringify(EXAMPLE_PARAMETERS, null, 2), allowedTools: '', headers: [], approval: 'never', approvalTools: '' };
}

export function newMcpTool(): ToolDraft {
  return { ...newTool(), type: 'mcp', parameters: '' };
}

function toolDraftOf(t: Agent['tools'][number]): ToolDraft {
  if (t.type === 'mcp') {
    const headers = Object.keys(t.headers).map((name) => ({ name, value: '', stored: true }));
    const approval = typeof t.approval === 'object' ? { approval: 'tools' as const, approvalTools: t.approval.tools.join(', ') } : { approval: t.approval };
    return { ...newMcpTool(), name: t.name, url: t.url, allowedTools: (t.allowedTools ?? []).join('\n'), headers, ...approval };
  }
  return { ...newTool(), name: t.name, description: t.description ?? '', url: t.url, method: t.method, parameters: JSON.stringify(t.parameters, null, 2), approval: t.approval };
}

export function emptyDraft(): AgentDraft {
  return { name: '', description: '', model: DEFAULT_MODEL, instructions: '', temperature: '', maxSteps: String(DEFAULT_MAX_STEPS), timeoutSeconds: String(DEFAULT_TIMEOUT_SECONDS), maxTotalTokens: '', approvalTimeoutSeconds: String(DEFAULT_APPROVAL_TIMEOUT_SECONDS), traceContent: false, tools: [] };
}

export function draftOf(agent: Agent): AgentDraft {
  return {
    name: agent.name,
    description: agent.description ?? '',
    model: agent.model,
    instructions: agent.instructions ?? '',
    temperature: agent.temperature === null ? '' : String(agent.temperature),
    maxSteps: String(agent.maxSteps),
    timeoutSeconds: String(agent.timeoutSeconds),
    maxTotalTokens: agent.maxTotalTokens === null ? '' : String(agent.maxTotalTokens),
    approvalTimeoutSeconds: String(agent.approvalTimeoutSeconds),
    traceContent: agent.traceContent,
    tools: agent.tools.map(toolDraftOf),
  };
}

/** The element id of a field named by its API param (`tools.0.url` → `agent-tools-0-url`). */
export const fieldId = (param: string) => `agent-${param.replace(/\./g, '-')}`;

const trimmed = z.string().transform((s) => s.trim());
const orNull = z.string().transform((s) => s.trim() || null);
/** A number typed as text (empty or not a number: NaN, which the server's schema refuses). */
const numeric = z.string().transform((s) => (s.trim() === '' ? Number.NaN : Number(s.trim())));

/** What an HTTP tool's body needs: the text as JSON. Its JSON Schema is checked by the server. */
function parametersOf(source: string, ctx: z.RefinementCtx): Record<string, unknown> | null {
  let schema: unknown;
  try {
    schema = JSON.parse(source);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'This is not valid JSON.', path: ['parameters'] });
    return null;
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || (schema as { type?: unknown }).type !== 'object') {
    ctx.addIssue({ code: 'custom', message: 'The parameters must be a JSON Schema object with "type": "object".', path: ['parameters'] });
    return null;
  }
  return schema as Record<string, unknown>;
}

/** An MCP tool's allowed tools as typed (one per line, or separated by commas or spaces): null for all. */
function allowedToolsOf(source: string, ctx: z.RefinementCtx): string[] | null {
  const names = source.split(/[\s,]+/).filter(Boolean);
  if (names.length > L.allowedTools.max || names.some((n) => n.length > L.mcpToolName.max)) {
    ctx.addIssue({ code: 'custom', message: `List at most ${L.allowedTools.max} tool names of at most ${L.mcpToolName.max} characters, or none for every tool.`, path: ['allowedTools'] });
  }
  return names.length > 0 ? names : null;
}

/** An MCP server's approval as the body sends it: `{tools: […]}` for the tools listed. */
function mcpApprovalOf(choice: ApprovalChoice, source: string, ctx: z.RefinementCtx): 'never' | 'always' | { tools: string[] } {
  if (choice !== 'tools') return choice;
  const names = source.split(/[\s,]+/).filter(Boolean);
  if (names.length === 0 || names.length > L.allowedTools.max || names.some((n) => n.length > L.mcpToolName.max)) {
    ctx.addIssue({ code: 'custom', message: `List 1–${L.allowedTools.max} of the server's tools (as it names them), or choose Never or Always.`, path: ['approvalTools'] });
  }
  return { tools: names };
}

/** An MCP tool's headers as the body sends them: a stored header left empty keeps its value ("********"). */
function headersOf(headers: HeaderDraft[], ctx: z.RefinementCtx): Record<string, string> {
  const names = headers.map((h) => h.name.trim());
  if (names.some((n) => n === '')) ctx.addIssue({ code: 'custom', message: 'Give each header a name, or remove it.', path: ['headers'] });
  else if (new Set(names.map((n) => n.toLowerCase())).size < names.length) ctx.addIssue({ code: 'custom', message: 'Name each header once.', path: ['headers'] });
  return Object.fromEntries(headers.map((h, i) => [names[i], h.stored && h.value === '' ? MASKED_HEADER : h.value]));
}

const toolDraft = z
  .object({
    type: z.enum(['http', 'mcp']),
    name: trimmed,
    description: trimmed,
    url: trimmed,
    method: z.enum(TOOL_METHODS),
    parameters: z.string(),
    allowedTools: z.string(),
    headers: z.array(z.object({ name: z.string(), value: z.string(), stored: z.boolean() })),
    approval: z.enum(['never', 'always', 'tools']),
    approvalTools: z.string(),
  })
  .transform((t, ctx) => {
    if (t.type === 'mcp') {
      const approval = mcpApprovalOf(t.approval, t.approvalTools, ctx);
      return { type: 'mcp' as const, name: t.name, url: t.url, allowedTools: allowedToolsOf(t.allowedTools, ctx), headers: headersOf(t.headers, ctx), approval };
    }
    const parameters = parametersOf(t.parameters, ctx);
    const approval = t.approval === 'always' ? ('always' as const) : ('never' as const);
    return parameters ? { type: 'http' as const, name: t.name, description: t.description, url: t.url, method: t.method, parameters, approval } : z.NEVER;
  });

/** The server's schema of the body, less what the form does not edit (metadata: an update would replace it). */
const serverSchema = createAgentInput.omit({ metadata: true });

const draftSchema = z.object({
  name: trimmed,
  description: orNull,
  model: z
    .string()
    .trim()
    .regex(/^[a-z-]+\/\S+$/, 'Choose a provider and enter a model id, as provider/model.'),
  instructions: orNull,
  temperature: z.string().transform((s) => (s.trim() === '' ? null : Number(s.trim()))),
  maxSteps: numeric,
  timeoutSeconds: numeric,
  maxTotalTokens: z.string().transform((s) => (s.trim() === '' ? null : Number(s.trim()))),
  approvalTimeoutSeconds: numeric,
  traceContent: z.boolean(),
  tools: z.array(toolDraft),
});

/**
 * The form's values → the body of agents.create / agents.update (every field of the form: an
 * update replaces them), checked by the server's schema. (zod types a pipe's target by exactly
 * the source's output; the body is one of the values the server schema takes.)
 */
export const agentFormSchema = draftSchema.pipe(serverSchema as unknown as z.ZodType<z.output<typeof serverSchema>, z.output<typeof draftSchema>>);

export type AgentInput = z.output<typeof agentFormSchema>;

const L = AGENT_LIMITS;
const count = (n: number) => n.toLocaleString('en-US');

/** The form's messages for the server schema's issues, by field (`tools.*.name`: any tool's). */
export function agentMessage(issue: { code: string; path?: PropertyKey[] }): string | undefined {
  const field = (issue.path ?? []).map((p) => (typeof p === 'number' ? '*' : String(p))).join('.');
  const tooSmall = issue.code === 'too_small';
  switch (field) {
    case 'name':
      return tooSmall ? 'Give the agent a name.' : `Use at most ${L.name.max} characters.`;
    case 'description':
      return `Use at most ${count(L.description.max)} characters.`;
    case 'instructions':
      return `Use at most ${count(L.instructions.max)} characters.`;
    case 'temperature':
      return `Use a number from ${L.temperature.min} to ${L.temperature.max}, or leave it empty.`;
    case 'maxSteps':
      return `Use a whole number from ${L.maxSteps.min} to ${L.maxSteps.max}.`;
    case 'timeoutSeconds':
      return `Use a whole number of seconds from ${L.timeoutSeconds.min} to ${L.timeoutSeconds.max}.`;
    case 'maxTotalTokens':
      return `Use a whole number of tokens from ${count(L.maxTotalTokens.min)} to ${count(L.maxTotalTokens.max)}, or leave it empty for no limit.`;
    case 'approvalTimeoutSeconds':
      return `Use a whole number of seconds from ${count(L.approvalTimeoutSeconds.min)} (a minute) to ${count(L.approvalTimeoutSeconds.max)} (7 days).`;
    case 'tools':
      return `An agent has at most ${L.tools.max} tools: remove one.`;
    case 'tools.*.description':
      return tooSmall ? 'Describe what the tool does: the model reads this to decide when to call it.' : `Use at most ${count(L.toolDescription.max)} characters.`;
    default:
      return undefined;
  }
}

/** A JSON text as its value written canonically (object keys sorted), or the text itself when it is not JSON. */
function jsonKey(source: string): unknown {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v;
  try {
    return sort(JSON.parse(source));
  } catch {
    return source;
  }
}

const words = (source: string) => source.split(/[\s,]+/).filter(Boolean);

/** The behaviour fields as they will be sent (docs/versions.md, "What makes one"), to tell whether a save makes a new version; name and description are not among them. */
export function behaviourKey(d: AgentDraft): string {
  const num = (s: string) => (s.trim() === '' ? null : Number(s.trim()));
  return JSON.stringify({
    model: d.model.trim(),
    instructions: d.instructions.trim() || null,
    temperature: num(d.temperature),
    maxSteps: num(d.maxSteps),
    timeoutSeconds: num(d.timeoutSeconds),
    maxTotalTokens: num(d.maxTotalTokens),
    approvalTimeoutSeconds: num(d.approvalTimeoutSeconds),
    traceContent: d.traceContent,
    tools: d.tools.map((t) =>
      t.type === 'mcp'
        ? {
            type: t.type,
            name: t.name.trim(),
            url: t.url.trim(),
            allowedTools: words(t.allowedTools),
            headers: t.headers.map((h) => [h.name.trim(), h.stored && h.value === '' ? MASKED_HEADER : h.value]),
            approval: t.approval === 'tools' ? words(t.approvalTools) : t.approval,
          }
        : { type: t.type, name: t.name.trim(), description: t.description.trim(), url: t.url.trim(), method: t.method, parameters: jsonKey(t.parameters), approval: t.approval === 'always' ? 'always' : 'never' },
    ),
  });
}
