import type { Agent } from '@/app/_lib/types';

// The agent form's state as the user types it (strings), the checks the browser can make
// before sending, and the request body built from it. The server validates everything again.

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

export interface ToolDraft {
  /** A stable React key (tools can be removed from the middle). */
  key: string;
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

export interface Problem {
  message: string;
  /** The field it is about, as the API names it (`tools.0.url`), or null for the form. */
  param: string | null;
}

export const DEFAULT_MODEL = 'sandbox/echo';

const EXAMPLE_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to look up' } },
  required: ['query'],
};

let keys = 0;
const nextKey = () => `tool-${++keys}`;

export function newTool(): ToolDraft {
  return { key: nextKey(), name: '', description: '', url: 'https://', method: 'POST', parameters: JSON.stringify(EXAMPLE_PARAMETERS, null, 2) };
}

export function emptyDraft(): AgentDraft {
  return { name: '', description: '', model: DEFAULT_MODEL, instructions: '', temperature: '', maxSteps: '5', timeoutSeconds: '120', tools: [] };
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
    tools: agent.tools.map((t) => ({
      key: nextKey(),
      name: t.name,
      description: t.description ?? '',
      url: t.url,
      method: t.method,
      parameters: JSON.stringify(t.parameters, null, 2),
    })),
  };
}

/** The element id of a field named by its API param (`tools.0.url` → `agent-tools-0-url`). */
export const fieldId = (param: string) => `agent-${param.replace(/\./g, '-')}`;

const integerIn = (value: string, min: number, max: number) => /^\d+$/.test(value.trim()) && Number(value) >= min && Number(value) <= max;

function checkTool(tool: ToolDraft, i: number, seen: Set<string>): Problem | null {
  const at = (field: string, message: string): Problem => ({ message, param: `tools.${i}.${field}` });
  const name = tool.name.trim();
  if (!name) return at('name', 'Give the tool a name.');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) return at('name', 'Use up to 64 letters, digits, _ or -.');
  if (seen.has(name.toLowerCase())) return at('name', `Another tool is already named “${name}”.`);
  seen.add(name.toLowerCase());
  if (!tool.description.trim()) return at('description', 'Describe what the tool does: the model reads this to decide when to call it.');
  let url: URL | null = null;
  try {
    url = new URL(tool.url.trim());
  } catch {
    url = null;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname) return at('url', 'Enter a full http:// or https:// URL.');
  let schema: unknown;
  try {
    schema = JSON.parse(tool.parameters);
  } catch {
    return at('parameters', 'This is not valid JSON.');
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || (schema as { type?: unknown }).type !== 'object') {
    return at('parameters', 'The parameters must be a JSON Schema object with "type": "object".');
  }
  return null;
}

/** The first problem the browser can see, or null. */
export function validate(draft: AgentDraft): Problem | null {
  if (!draft.name.trim()) return { message: 'Give the agent a name.', param: 'name' };
  if (!/^[a-z-]+\/\S+$/.test(draft.model.trim())) return { message: 'Choose a provider and enter a model id, as provider/model.', param: 'model' };
  const t = draft.temperature.trim();
  if (t && !(/^\d*\.?\d+$/.test(t) && Number(t) <= 2)) return { message: 'Use a number from 0 to 2, or leave it empty.', param: 'temperature' };
  if (!integerIn(draft.maxSteps, 1, 20)) return { message: 'Use a whole number from 1 to 20.', param: 'maxSteps' };
  if (!integerIn(draft.timeoutSeconds, 1, 900)) return { message: 'Use a whole number of seconds from 1 to 900.', param: 'timeoutSeconds' };
  const seen = new Set<string>();
  for (const [i, tool] of draft.tools.entries()) {
    const problem = checkTool(tool, i, seen);
    if (problem) return problem;
  }
  return null;
}

/** The body of agents.create / agents.update (every field of the form: the update replaces them). */
export function inputOf(draft: AgentDraft) {
  const temperature = draft.temperature.trim();
  return {
    name: draft.name.trim(),
    description: draft.description.trim() || null,
    model: draft.model.trim(),
    instructions: draft.instructions.trim() || null,
    temperature: temperature ? Number(temperature) : null,
    maxSteps: Number(draft.maxSteps),
    timeoutSeconds: Number(draft.timeoutSeconds),
    tools: draft.tools.map((t) => ({
      type: 'http' as const,
      name: t.name.trim(),
      description: t.description.trim(),
      url: t.url.trim(),
      method: t.method,
      parameters: JSON.parse(t.parameters) as Record<string, unknown>,
    })),
  };
}
