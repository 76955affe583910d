import { z } from 'zod';
import { ENVIRONMENTS, TOOL_APPROVALS } from '../../../db/schema/values';
import { metadataSchema } from '../../platform/metadata';
import { PROVIDERS } from '../models/providers';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';

// Request and response shapes of /v1/agents (docs/api.md, "Agents"). The descriptions and examples
// end up in /v1/openapi.json (and so in the /docs reference). zod checks the shape and the bounds;
// service.ts checks what needs more than a shape (model, tool names, URLs, JSON Schemas).

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The bounds of an agent's fields, which the schemas below enforce and the dashboard's agent
 * form shows (its hints, its inputs' min, max and maxLength): one number, one place.
 */
export const AGENT_LIMITS = {
  name: { min: 1, max: 100 },
  description: { max: 1000 },
  instructions: { max: 32_000 },
  tools: { max: 20 },
  temperature: { min: 0, max: 2 },
  maxSteps: { min: 1, max: 20 },
  timeoutSeconds: { min: 1, max: 900 },
  /** A run's token cap (input + output of every model call). */
  maxTotalTokens: { min: 1, max: 100_000_000 },
  /** How long a tool call awaits approval before it is denied as expired: 60 s – 7 days. */
  approvalTimeoutSeconds: { min: 60, max: 604_800 },
  toolName: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, max: 64 },
  toolDescription: { min: 1, max: 1000 },
  /** An MCP tool's `allowedTools`: how many names, and each name's length. */
  allowedTools: { max: 100 },
  mcpToolName: { min: 1, max: 128 },
  /** An MCP tool's `headers`: how many, and each value's size in bytes (UTF-8). */
  headers: { max: 20 },
  headerValue: { maxBytes: 4096 },
} as const;
export const MAX_TOOLS = AGENT_LIMITS.tools.max;
/** Serialized size limit of one tool's `parameters` (bytes of its JSON). */
export const MAX_PARAMETERS_BYTES = 16 * 1024;
export const DEFAULT_MODEL = 'sandbox/echo';
export const DEFAULT_MAX_STEPS = 5;
export const DEFAULT_TIMEOUT_SECONDS = 120;
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 86_400;

const EXAMPLE_ID = 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
const EXAMPLE_CREATED_AT = '2026-11-21T20:31:07.123Z';
const EXAMPLE_PARAMETERS = {
  type: 'object',
  properties: { orderId: { type: 'string', description: 'The order number, e.g. 1042' } },
  required: ['orderId'],
};
/** What a response shows for each value of an MCP tool's `headers`; sent back on update, it keeps the stored value. */
export const MASKED_HEADER = '********';
const EXAMPLE_TOOL = {
  type: 'http',
  name: 'lookup_order',
  description: 'Looks up an order by its number and returns its status.',
  url: 'https://api.example.com/tools/lookup-order',
  method: 'POST',
  parameters: EXAMPLE_PARAMETERS,
};

const EXAMPLE_MCP_TOOL = {
  type: 'mcp',
  name: 'docs',
  url: 'https://mcp.example.com/mcp',
  allowedTools: ['search', 'fetch_page'],
  headers: { Authorization: MASKED_HEADER },
};

const timestamp = z.string().meta({ format: 'date-time', example: EXAMPLE_CREATED_AT });

const L = AGENT_LIMITS;
/** 1000 → `1,000`, as the descriptions write numbers. */
const n = (value: number) => value.toLocaleString('en-US');

// ---- requests ----

const toolName = z
  .string()
  .regex(L.toolName.pattern, `must be 1–${L.toolName.max} letters, digits, _ or -`)
  .meta({ description: `How the model calls the tool: 1–${L.toolName.max} letters, digits, \`_\` or \`-\`, unique within the agent (ignoring case).`, example: 'lookup_order' });

const httpApproval = z.enum(TOOL_APPROVALS).meta({
  description: '`always`: each call waits for a person to approve or deny it (the execution pauses in `requires_action`). Default: `never`.',
  example: 'never',
});

const mcpApproval = z
  .union([
    z.enum(TOOL_APPROVALS),
    z.strictObject({
      tools: z
        .array(z.string().min(L.mcpToolName.min).max(L.mcpToolName.max))
        .min(1)
        .max(L.allowedTools.max)
        .meta({ description: 'The server’s tools (as it lists them) whose calls need approval; its other tools do not.' }),
    }),
  ])
  .meta({
    description: '`always`: every call of the server’s tools waits for a person’s decision; `{"tools": […]}`: the listed tools’ calls do. Default: `never`.',
    example: { tools: ['delete_page'] },
  });

const httpToolInput = z
  .strictObject({
    type: z.literal('http').meta({ description: 'An HTTP tool: the runner calls `url` with the model’s arguments.', example: 'http' }),
    name: toolName,
    description: z
      .string()
      .trim()
      .min(L.toolDescription.min)
      .max(L.toolDescription.max)
      .meta({ description: `What the tool does, for the model to decide when to call it (${L.toolDescription.min}–${n(L.toolDescription.max)} characters).`, example: EXAMPLE_TOOL.description }),
    url: z.string().meta({
      description:
        'The endpoint the runner calls with the model’s arguments as a JSON body (query string for GET), signed like webhooks ' +
        '(Standard Webhooks headers, with the agent’s `toolSecret`, over the method, the URL and the body). For GET, query ' +
        'parameters written in this URL are fixed: a call whose arguments name one of them is refused, not sent. http or https, ' +
        'no credentials; unless the server allows it, never a loopback, private, link-local or metadata address. ' +
        'A URL holding a token (a query, a token-like path segment) is stored encrypted; sending back the masked form it was shown keeps it.',
      example: EXAMPLE_TOOL.url,
    }),
    method: z.enum(TOOL_METHODS).default('POST').meta({ description: 'HTTP method of the call. Default: `POST`.', example: 'POST' }),
    parameters: z.record(z.string(), z.unknown()).meta({
      description: 'A JSON Schema of the arguments, with `"type": "object"` (draft 2020-12 or draft-07), at most 16 KB as JSON.',
      example: EXAMPLE_PARAMETERS,
    }),
    approval: httpApproval.default('never'),
  })
  .meta({ id: 'AgentHttpToolInput' });

const mcpToolInput = z
  .strictObject({
    type: z.literal('mcp').meta({ description: 'A remote MCP server’s tools, over Streamable HTTP.', example: 'mcp' }),
    name: toolName.meta({
      description:
        `Names the server within the agent: 1–${L.toolName.max} letters, digits, \`_\` or \`-\`, unique among the agent’s tools (ignoring case). ` +
        'The model is offered each of the server’s tools as `<name>_<tool>`.',
      example: EXAMPLE_MCP_TOOL.name,
    }),
    url: z.string().meta({
      description:
        'The server’s Streamable HTTP endpoint. http or https, no credentials; unless the server allows it, never a loopback, private, ' +
        'link-local or metadata address; redirects are not followed. Stored encrypted when it holds a token; sending back the masked form it was shown keeps it.',
      example: EXAMPLE_MCP_TOOL.url,
    }),
    allowedTools: z
      .array(z.string().min(L.mcpToolName.min).max(L.mcpToolName.max))
      .min(1)
      .max(L.allowedTools.max)
      .nullable()
      .default(null)
      .meta({
        description: `The server’s tools the model may call (1–${L.allowedTools.max} names of ${L.mcpToolName.min}–${L.mcpToolName.max} characters); \`null\` or absent: every tool the server lists.`,
        example: EXAMPLE_MCP_TOOL.allowedTools,
      }),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .meta({
        description:
          `HTTP headers sent with every request to the server (at most ${L.headers.max}; values ≤ 4 KB, no line breaks), e.g. its credentials. ` +
          `Write-only: responses show each value as \`"${MASKED_HEADER}"\`. On update, a value of \`"${MASKED_HEADER}"\` keeps the stored value of ` +
          'that header of the same-named MCP tool, as long as its URL keeps the same origin.',
        example: { Authorization: 'Bearer mcp_live_…' },
      }),
    approval: mcpApproval.default('never'),
  })
  .meta({ id: 'AgentMcpToolInput' });

const toolInput = z.discriminatedUnion('type', [httpToolInput, mcpToolInput]).meta({ id: 'AgentToolInput' });

export type ToolInput = z.infer<typeof toolInput>;
export type HttpToolInput = z.infer<typeof httpToolInput>;
export type McpToolInput = z.infer<typeof mcpToolInput>;

/** The writable fields, with their bounds; create adds the defaults, update makes them optional. */
const fields = {
  name: z
    .string()
    .trim()
    .min(L.name.min)
    .max(L.name.max)
    .meta({ description: `A name for the agent, ${L.name.min}–${L.name.max} characters.`, example: 'Order support' }),
  description: z
    .string()
    .max(L.description.max)
    .nullable()
    .meta({ description: `What the agent is for (≤ ${n(L.description.max)} characters), or \`null\`.`, example: 'Answers questions about orders.' }),
  model: z.string().meta({
    description: `The model, as \`provider/model\`; providers: ${PROVIDERS.map((p) => `\`${p}\``).join(', ')}. \`sandbox/…\` runs offline and deterministically.`,
    example: 'openai/gpt-4o-mini',
  }),
  instructions: z
    .string()
    .max(L.instructions.max)
    .nullable()
    .meta({ description: `The system prompt (≤ ${n(L.instructions.max)} characters), or \`null\`.`, example: 'You are a friendly support agent. Look orders up before answering.' }),
  tools: z
    .array(toolInput)
    .max(MAX_TOOLS)
    .meta({ description: `The tools the model may call, at most ${MAX_TOOLS}: HTTP tools and MCP servers.`, example: [EXAMPLE_TOOL, EXAMPLE_MCP_TOOL] }),
  temperature: z.number().min(L.temperature.min).max(L.temperature.max)
    .nullable()
    .meta({ description: `Sampling temperature, ${L.temperature.min}–${L.temperature.max}; \`null\`: the provider’s default.`, example: 0.2 }),
  maxSteps: z.number().int().min(L.maxSteps.min).max(L.maxSteps.max).meta({
    description: `Most model calls in one execution (each tool round trip is a step), ${L.maxSteps.min}–${L.maxSteps.max}.`,
    example: DEFAULT_MAX_STEPS,
  }),
  timeoutSeconds: z.number().int().min(L.timeoutSeconds.min).max(L.timeoutSeconds.max).meta({
    description: `An execution still running after this many seconds fails with \`timeout\`, ${L.timeoutSeconds.min}–${L.timeoutSeconds.max}.`,
    example: DEFAULT_TIMEOUT_SECONDS,
  }),
  maxTotalTokens: z
    .number()
    .int()
    .min(L.maxTotalTokens.min)
    .max(L.maxTotalTokens.max)
    .nullable()
    .meta({
      description: `The most tokens (input and output, every model call) one execution may use, ${n(L.maxTotalTokens.min)}–${n(L.maxTotalTokens.max)}; a run past it ends \`failed\` with \`max_tokens_exceeded\` after that step, and no further model call starts. \`null\`: no limit.`,
      example: 200_000,
    }),
  approvalTimeoutSeconds: z.number().int().min(L.approvalTimeoutSeconds.min).max(L.approvalTimeoutSeconds.max).meta({
    description: `How long a tool call awaits approval, in seconds (${n(L.approvalTimeoutSeconds.min)}–${n(L.approvalTimeoutSeconds.max)}); still undecided then, it is denied as \`"expired"\` and the run goes on.`,
    example: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  }),
  traceContent: z.boolean().meta({
    description:
      'Whether the traces of its runs carry their content: the messages each model call was sent and answered, tool arguments and results, each value capped at 32 KB (docs/traces.md). Off by default.',
    example: false,
  }),
  metadata: metadataSchema,
  outputSchema: z
    .object({})
    .catchall(z.unknown())
    .nullable()
    .meta({
      description:
        'The JSON Schema its final answer must match (docs/versions.md, "Structured outputs"): an object with `properties`, every property `required`, `additionalProperties: false`; arrays, enums, strings, numbers, integers, booleans, null, `anyOf`; depth ≤ 5, ≤ 100 properties. The answer is then on executions as `outputJson`. `null`: free text.',
      example: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false },
    }),
};

/** What a change is for: kept on the version it makes (none is made when the behaviour does not change). */
const versionNote = z.string().max(500).meta({ description: 'A note kept on the version this makes (at most 500 characters); ignored when no version is made.', example: 'Shorter answers' });

export const createAgentInput = z
  .strictObject({
    name: fields.name,
    description: fields.description.default(null),
    model: fields.model.default(DEFAULT_MODEL),
    instructions: fields.instructions.default(null),
    tools: fields.tools.default([]),
    temperature: fields.temperature.default(null),
    maxSteps: fields.maxSteps.default(DEFAULT_MAX_STEPS),
    timeoutSeconds: fields.timeoutSeconds.default(DEFAULT_TIMEOUT_SECONDS),
    maxTotalTokens: fields.maxTotalTokens.default(null),
    approvalTimeoutSeconds: fields.approvalTimeoutSeconds.default(DEFAULT_APPROVAL_TIMEOUT_SECONDS),
    traceContent: fields.traceContent.default(false),
    outputSchema: fields.outputSchema.default(null),
    metadata: fields.metadata.default({}),
    versionNote: versionNote.optional(),
  })
  .meta({ id: 'CreateAgentRequest' });

const agentId = z.string().meta({ description: 'The id of the agent (`agt_…`).', example: EXAMPLE_ID });

export const agentIdInput = z.strictObject({ id: agentId });

/** PATCH: only the fields given change; `null` clears description, instructions and temperature. */
export const updateAgentInput = z
  .strictObject({
    id: agentId,
    name: fields.name.optional(),
    description: fields.description.optional(),
    model: fields.model.optional(),
    instructions: fields.instructions.optional(),
    tools: fields.tools.optional().meta({ description: `Replaces every tool (at most ${MAX_TOOLS}); \`[]\` removes them all.` }),
    temperature: fields.temperature.optional(),
    maxSteps: fields.maxSteps.optional(),
    timeoutSeconds: fields.timeoutSeconds.optional(),
    maxTotalTokens: fields.maxTotalTokens.optional(),
    approvalTimeoutSeconds: fields.approvalTimeoutSeconds.optional(),
    traceContent: fields.traceContent.optional(),
    outputSchema: fields.outputSchema.optional(),
    metadata: fields.metadata.optional().meta({ description: 'Replaces the whole metadata (≤ 50 keys); `{}` removes it all.' }),
    versionNote: versionNote.optional(),
  })
  .meta({ description: 'The fields to change; the others keep their value.' });

export const listAgentsInput = z.strictObject(pageQuerySchema);

// ---- responses ----

/** Who reads a tool's URL whole (docs/security.md, "Secrets at rest"). */
const SHOWN =
  'Who may change the agent (API keys; owners, admins and developers) reads it whole; viewers, events and the audit log see it ' +
  'with its credentials masked as `****` (the query, the fragment, user info, path segments that look like tokens).';

const httpToolSchema = z
  .object({
    type: z.literal('http'),
    name: z.string().meta({ example: EXAMPLE_TOOL.name }),
    description: z.string().meta({ example: EXAMPLE_TOOL.description }),
    url: z.string().meta({ description: `The tool's endpoint. ${SHOWN}`, example: EXAMPLE_TOOL.url }),
    method: z.enum(TOOL_METHODS).meta({ example: 'POST' }),
    parameters: z.object({}).catchall(z.unknown()).meta({ description: 'The JSON Schema of the arguments.', example: EXAMPLE_PARAMETERS }),
    approval: z.enum(TOOL_APPROVALS).meta({ description: '`always`: each call waits for a person’s decision.', example: 'never' }),
  })
  .meta({ id: 'AgentHttpTool', description: 'An HTTP tool the model may call.' });

const mcpToolSchema = z
  .object({
    type: z.literal('mcp'),
    name: z.string().meta({ example: EXAMPLE_MCP_TOOL.name }),
    url: z.string().meta({ description: `The server's endpoint. ${SHOWN}`, example: EXAMPLE_MCP_TOOL.url }),
    allowedTools: z.array(z.string()).nullable().meta({ description: '`null`: every tool the server lists.', example: EXAMPLE_MCP_TOOL.allowedTools }),
    headers: z
      .object({})
      .catchall(z.literal(MASKED_HEADER))
      .meta({ description: `The names of the headers sent to the server; their values are never shown: \`"${MASKED_HEADER}"\`.`, example: EXAMPLE_MCP_TOOL.headers }),
    approval: z
      .union([z.enum(TOOL_APPROVALS), z.object({ tools: z.array(z.string()) })])
      .meta({ description: 'Which of its tools’ calls wait for a person’s decision: `never`, `always`, or `{"tools": […]}`.', example: 'never' }),
  })
  .meta({ id: 'AgentMcpTool', description: 'A remote MCP server whose tools the model may call, as `<name>_<tool>`.' });

const toolSchema = z.discriminatedUnion('type', [httpToolSchema, mcpToolSchema]).meta({ id: 'AgentTool' });

const agentFields = {
  id: z.string().meta({ description: 'Unique identifier of the agent (`agt_…`).', example: EXAMPLE_ID }),
  name: z.string().meta({ example: 'Order support' }),
  description: z.string().nullable().meta({ example: 'Answers questions about orders.' }),
  model: z.string().meta({ description: 'The model, as `provider/model`.', example: 'openai/gpt-4o-mini' }),
  instructions: z.string().nullable().meta({ description: 'The system prompt.', example: 'You are a friendly support agent.' }),
  tools: z.array(toolSchema),
  temperature: z.number().nullable().meta({ description: '`null`: the provider’s default.', example: 0.2 }),
  maxSteps: z.number().int().min(L.maxSteps.min).max(L.maxSteps.max).meta({ description: 'Most model calls in one execution.', example: DEFAULT_MAX_STEPS }),
  timeoutSeconds: z.number().int().min(L.timeoutSeconds.min).max(L.timeoutSeconds.max).meta({ description: 'Time limit of one execution, in seconds.', example: DEFAULT_TIMEOUT_SECONDS }),
  maxTotalTokens: z.number().int().nullable().meta({ description: 'The most tokens one execution may use; `null`: no limit.', example: null }),
  approvalTimeoutSeconds: z.number().int().meta({ description: 'How long a tool call awaits approval before it is denied as `"expired"`, in seconds.', example: DEFAULT_APPROVAL_TIMEOUT_SECONDS }),
  traceContent: z.boolean().meta({ description: 'Whether its runs’ traces carry their content (messages, tool arguments and results).', example: false }),
  outputSchema: z.object({}).catchall(z.unknown()).nullable().meta({ description: 'The JSON Schema its final answers match; `null`: free text.', example: null }),
  // An object with string values (a record would also document `propertyNames`, which says nothing here).
  metadata: z
    .object({})
    .catchall(z.string())
    .meta({ description: 'Your own key-value pairs.', example: { team: 'support' } }),
  version: z.number().int().meta({ description: 'The latest version (docs/versions.md): every change of the agent’s behaviour makes one.', example: 3 }),
  labels: z
    .object({})
    .catchall(z.number().int())
    .meta({ description: 'Its labels and the versions they point at; `production` always exists and runs by default.', example: { production: 3, staging: 4 } }),
  environment: z.enum(ENVIRONMENTS).meta({ description: 'The environment the agent lives in: `live` or `test`.', example: 'live' }),
  createdAt: timestamp.meta({ description: 'When the agent was created.' }),
  updatedAt: timestamp.meta({ description: 'When the agent was last changed.' }),
};

export const agentSchema = z.object(agentFields).meta({ id: 'Agent' });

const toolSecret = z.string().meta({
  description:
    'The secret that signs this agent’s HTTP tool calls, the Standard Webhooks way over the request line and the body: ' +
    'the signed content is `<METHOD> <URL>\\n<body>` (the method in capitals, the exact URL requested with its query string, ' +
    'a newline, the raw body: empty for GET). Verify a call with the `standardwebhooks` library: ' +
    '`` new Webhook(secret).verify(`${method} ${url}\\n${rawBody}`, headers, { jsonParse: false }) `` (headers `webhook-id`, ' +
    '`webhook-timestamp`, `webhook-signature`; it throws when no signature matches), then parse the body yourself. Returned only when the agent is created and when its tool secret is rotated, never again: store it now.',
  // Shortened on purpose: a complete-looking secret in docs gets copied, and flagged as a leak.
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw…',
});

export const createdAgentSchema = z.object({ ...agentFields, toolSecret }).meta({ id: 'CreatedAgent' });

export const rotatedAgentSchema = z
  .object({
    ...agentFields,
    toolSecret,
    previousToolSecretExpiresAt: timestamp.meta({
      description:
        'Until then tool calls also carry a signature made with the previous secret (24 h): `webhook-signature` holds both. ' +
        'Now when this server could not open the previous secret (sealed under a key it no longer holds): it stopped at once.',
    }),
  })
  .meta({ id: 'RotatedAgent' });

export const agentListSchema = pageEnvelopeSchema(agentSchema).meta({ id: 'AgentList' });

export const deletedAgentSchema = z
  .object({
    id: z.string().meta({ description: 'The id of the deleted agent.', example: EXAMPLE_ID }),
    deleted: z.literal(true).meta({ description: 'Always `true`.', example: true }),
  })
  .meta({ id: 'DeletedAgent' });
