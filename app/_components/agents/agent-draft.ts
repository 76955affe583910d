import { z } from 'zod';
import type { Agent } from '@/app/_lib/types';
import { AGENT_LIMITS, createAgentInput, DEFAULT_MAX_STEPS, DEFAULT_MODEL, DEFAULT_TIMEOUT_SECONDS, TOOL_METHODS } from '@/server/modules/agents/schemas';

// The agent form's values as the user types them (strings), and the schema that checks them:
// the text becomes the request body (numbers, nulls, parsed JSON), which the server's own
// createAgentInput then validates, bounds included (AGENT_LIMITS). The messages below replace
// zod's where the schema has none of its own. What needs more than a shape (the provider, the
// tool URLs, duplicate tool names, the JSON Schemas themselves) the server checks on submit.

export { AGENT_LIMITS, DEFAULT_MODEL };
export const METHODS = TOOL_METHODS;
export type Method = (typeof METHODS)[number];

export interface ToolDraft {
  name: string;
  description: string;
  url: string;
  method: Method;
  parameters: string;
}

export interface AgentDraft {
  name: string;
  description: string;
  model: string;
  instructions: string;
  temperature: string;
  maxSteps: string;
  timeoutSeconds: string;
  tools: ToolDraft[];
}

const EXAMPLE_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to look up' } },
  required: ['query'],
};

export function newTool(): ToolDraft {
  return { name: '', description: '', url: 'https://', method: 'POST', parameters: JSON.stringify(EXAMPLE_PARAMETERS, null, 2) };
}

export function emptyDraft(): AgentDraft {
  return { name: '', description: '', model: DEFAULT_MODEL, instructions: '', temperature: '', maxSteps: String(DEFAULT_MAX_STEPS), timeoutSeconds: String(DEFAULT_TIMEOUT_SECONDS), tools: [] };
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
    tools: agent.tools.map((t) => ({ name: t.name, description: t.description ?? '', url: t.url, method: t.method, parameters: JSON.stringify(t.parameters, null, 2) })),
  };
}

/** The element id of a field named by its API param (`tools.0.url` → `agent-tools-0-url`). */
export const fieldId = (param: string) => `agent-${param.replace(/\./g, '-')}`;

const trimmed = z.string().transform((s) => s.trim());
const orNull = z.string().transform((s) => s.trim() || null);
/** A number typed as text (empty or not a number: NaN, which the server's schema refuses). */
const numeric = z.string().transform((s) => (s.trim() === '' ? Number.NaN : Number(s.trim())));

const toolDraft = z
  .object({
    name: trimmed,
    description: trimmed,
    url: trimmed,
    method: z.enum(TOOL_METHODS),
    // What the body needs: the text as JSON. Its JSON Schema is checked by the server.
    parameters: z.string().transform((source, ctx): Record<string, unknown> => {
      let schema: unknown;
      try {
        schema = JSON.parse(source);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'This is not valid JSON.' });
        return z.NEVER;
      }
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || (schema as { type?: unknown }).type !== 'object') {
        ctx.addIssue({ code: 'custom', message: 'The parameters must be a JSON Schema object with "type": "object".' });
        return z.NEVER;
      }
      return schema as Record<string, unknown>;
    }),
  })
  .transform((t) => ({ type: 'http' as const, ...t }));

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
    case 'tools':
      return `An agent has at most ${L.tools.max} tools: remove one.`;
    case 'tools.*.description':
      return tooSmall ? 'Describe what the tool does: the model reads this to decide when to call it.' : `Use at most ${count(L.toolDescription.max)} characters.`;
    default:
      return undefined;
  }
}
