import type { OpenAPIObject, OperationObject, ParameterObject, RequestBodyObject, SchemaObject } from 'openapi3-ts/oas31';
import { OPERATIONS } from '../../sdk/src/operations';

// Each operation's examples, as `x-codeSamples`: curl, and the typed client (docs/sdk.md). /docs
// shows these and nothing else (Scalar's own generated snippets are hidden: they were never
// run), and test/sdk/examples.int.test.ts runs every one against a live server, in an order
// where each id an example names was made by an example before it. So the examples form one
// story: the agent made here has a `refund` tool that waits for approval, both runs of the
// execute example ask for a refund and pause, one is approved and the other cancelled.
//
// They are written for EXAMPLE_ORIGIN; /docs puts the origin it was served from in its place
// (app/_components/api-reference.tsx). Lines are kept short: the examples' column on /docs is
// about 46 characters wide at 1280 px.

export const EXAMPLE_ORIGIN = 'http://localhost:3000';
const WIDTH = 46;

/** Ids for path parameters the document gives no example of, by resource. */
const IDS: Record<string, string> = {
  executions: 'exe_01JD8X41B2C3D4E5F6G7H8J9KA',
  conversations: 'conv_01JD8X40A0Z9Y8X7W6V5T4S3R2',
  agents: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK',
};
const CALL_ID = 'call_01JD8X41B2C3D4E5F6G7H8J9KA';

/** Bodies worth more than the required fields' examples. */
const BODIES: Record<string, Record<string, unknown>> = {
  'agents-create': {
    name: 'Order support',
    model: 'sandbox/echo',
    instructions: 'Help with orders. Be brief.',
    tools: [
      {
        type: 'http',
        name: 'refund',
        description: 'Refunds an order.',
        url: 'https://example.com/tools/refund',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
        approval: 'always',
      },
    ],
  },
  'budgets-create': { name: 'Monthly cap', target: { type: 'workspace' }, limit: { usd: '25.00' }, period: 'month', action: 'block' },
  'keys-create': { name: 'Production backend', scopes: ['agents:read', 'agents:execute'] },
  'agents-moveLabel': { version: 1 },
  'datasets-createItem': { input: 'Where is order 1042?', expected: 'Order 1042 shipped on 2026-11-20.' },
  'experiments-create': {
    agentId: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK',
    datasetId: 'dst_01JD8X41B2C3D4E5F6G7H8J9K0',
    scorers: [{ type: 'contains', value: '1042' }, { type: 'llm_judge', model: 'openai/gpt-4o-mini', rubric: 'Does it answer the question?' }],
    trials: 10,
    concurrency: 1,
  },
  'evalRules-create': { scorers: [{ type: 'contains', value: 'order' }], sampleRate: 0.1, alertBelow: { scorer: 'contains', mean: 0.8, window: 20 } },
  'executions-approvals': { decisions: [{ toolCallId: CALL_ID, approve: true }], wait: true },
  'executions-replay': { fromStep: 0, instructions: 'Help with orders. Be thorough.', wait: true },
};

/** The two runs of the execute example, with what each says in TypeScript and in curl. */
const EXECUTE = [
  { body: { input: 'Refund order 1042.', wait: true }, ts: 'Wait until it ends, or pauses for approval (a retry after a lost answer never runs it twice):', sh: 'Wait until it ends, or pauses for approval:' },
  { body: { input: 'Refund order 1043.', stream: true }, ts: 'Or stream its events (a dropped connection resumes, no event lost or repeated):', sh: 'Or stream its events (server-sent events):' },
];

// ---- Literals: inline when the line fits, else one entry a line ----

const IDENT = /^[A-Za-z_$][\w$]*$/;
const tsString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * `value` as a TypeScript (`ts`) or JSON literal whose first character sits at column `lead` and
 * whose lines after the first are indented by `indent`.
 */
function literal(value: unknown, ts: boolean, indent = 0, lead = indent): string {
  if (value === null || typeof value !== 'object') return typeof value === 'string' && ts ? tsString(value) : JSON.stringify(value);
  const isArray = Array.isArray(value);
  const entries = isArray ? (value as unknown[]).map((v) => [null, v] as const) : Object.entries(value as Record<string, unknown>);
  const key = (k: string | null) => (k === null ? '' : `${ts && IDENT.test(k) ? k : JSON.stringify(k)}: `);
  const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const pad = ts && !isArray ? ' ' : '';
  const inline = `${open}${pad}${entries.map(([k, v]) => key(k) + literal(v, ts, 0, -Infinity)).join(', ')}${pad}${close}`;
  if (!inline.includes('\n') && lead + inline.length <= WIDTH) return inline;
  const inner = indent + 2;
  const lines = entries.map(([k, v]) => `${' '.repeat(inner)}${key(k)}${literal(v, ts, inner, inner + key(k).length)}`);
  return `${open}\n${lines.join(',\n')}${ts ? ',' : ''}\n${' '.repeat(indent)}${close}`;
}

// ---- What an operation's example sends ----

interface Example {
  where: string;
  args: string[];
  body?: Record<string, unknown>;
}

/** A path parameter's example (`agt_…`), else the resource's. */
function pathArgs(op: OperationObject, resource: string): string[] {
  return (op.parameters ?? [])
    .filter((p): p is ParameterObject => !('$ref' in p) && p.in === 'path')
    .map((p) => String(p.example ?? (p.schema as SchemaObject | undefined)?.example ?? IDS[resource] ?? p.name));
}

/** The body's example: the schema's, or one made of its properties' examples. */
function bodyExample(op: OperationObject): Record<string, unknown> | undefined {
  const schema = (op.requestBody as RequestBodyObject | undefined)?.content?.['application/json']?.schema as SchemaObject | undefined;
  if (!schema) return undefined;
  if (schema.example && typeof schema.example === 'object') return schema.example as Record<string, unknown>;
  // The required fields' examples; for an update (nothing required), its first field's.
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {})
    .flatMap(([name, prop]) => {
      const example = (prop as SchemaObject).example;
      return example !== undefined && example !== null && (required.size === 0 || required.has(name)) ? [[name, example] as const] : [];
    })
    .slice(0, required.size === 0 ? 1 : undefined);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

const isList = (where: string) => /\.list(Deliveries|Versions|Items)?$/.test(where) && where !== 'models.list' && where !== 'evalRules.list';
/** Analytics' `start`: the first day of this month, so the example never falls out of the kept range. */
const isAnalytics = (where: string) => where.startsWith('analytics.');

function exampleOf(id: string, op: OperationObject, where: string): Example {
  const [resource = ''] = where.split('.');
  const args = pathArgs(op, resource);
  if (isList(where)) return { where, args };
  return { where, args, body: BODIES[id] ?? bodyExample(op) };
}

// ---- TypeScript ----

const PREAMBLE = `import { Client } from 'agent-automation-sdk';

const client = new Client({
  apiKey: process.env.KEY!,
  baseUrl: '${EXAMPLE_ORIGIN}',
});

`;

/**
 * `client.x.y(ids…, value)` after `prefix`: on one line when it fits; a lone literal opens on
 * that line; otherwise one argument a line.
 */
function call(prefix: string, where: string, ids: string[], value?: unknown): string {
  const head = `${prefix}client.${where}(`;
  const inline = [...ids.map(tsString), ...(value === undefined ? [] : [literal(value, true, 0, -Infinity)])].join(', ');
  if (head.length + inline.length + 2 <= WIDTH) return `${head}${inline})`;
  if (ids.length === 0) return value === undefined ? `${head})` : `${head}${literal(value, true, 0, head.length)})`;
  const args = [...ids.map(tsString), ...(value === undefined ? [] : [literal(value, true, 2)])];
  return `${head}\n${args.map((a) => `  ${a},`).join('\n')}\n)`;
}

function typescript(id: string, ex: Example): string {
  const [resource = '', method = ''] = ex.where.split('.');
  if (id === 'agents-execute') {
    const [wait, stream] = EXECUTE as [(typeof EXECUTE)[0], (typeof EXECUTE)[0]];
    return [
      `// ${wait.ts}\n${call('const execution = await ', ex.where, ex.args, wait.body)};\nconsole.log(execution.status, execution.output);`,
      `// ${stream.ts}\n${call('const stream = ', ex.where, ex.args, stream.body)};\n` +
        `for await (const event of stream) {\n  if (event.type === 'text.delta') {\n    process.stdout.write(event.delta);\n  } else console.log(event.type);\n}`,
    ].join('\n\n');
  }
  if (id === 'executions-stream') return `${call('const stream = ', ex.where, ex.args)};\nfor await (const event of stream) {\n  console.log(event.type);\n}`;
  if (isList(ex.where)) {
    const item =
      ex.where === 'webhooks.listDeliveries' ? 'delivery' : ex.where === 'auditEvents.list' ? 'record' : ex.where === 'agents.listVersions' ? 'version' : ex.where === 'datasets.listItems' ? 'item' : resource.replace(/s$/, '');
    const list = item === 'delivery' ? 'deliveries' : `${item}s`;
    const shown = item === 'version' ? `${item}.version, ${item}.note` : `${item}.id`;
    return `${call(`const ${list} = `, ex.where, ex.args)};\nfor await (const ${item} of ${list}) {\n  console.log(${shown});\n}`;
  }
  if (isAnalytics(ex.where)) {
    return `// This month so far, a bucket a day:\nconst start = new Date().toISOString().slice(0, 8) + '01';\nconst result = await client.${ex.where}({ start });\nconsole.log(result.data);`;
  }
  if (id === 'executions-approvals' || id === 'executions-replay') return `${call('const execution = await ', ex.where, ex.args, ex.body)};\nconsole.log(execution.status, execution.output);`;
  const name = method === 'delete' ? 'deleted' : ['create', 'retrieve', 'update'].includes(method) ? resource.replace(/s$/, '') : method === 'cancel' ? 'execution' : 'result';
  return `${call(`const ${name} = await `, ex.where, ex.args, ex.body)};`;
}

// ---- curl ----

const shellQuote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

function curlCommand(method: string, path: string, opts: { body?: unknown; query?: string; keyless?: boolean; stream?: boolean } = {}): string {
  // A URL with a query is double-quoted: `?` is a glob character (zsh refuses an unmatched one).
  const url = opts.query ? `"${EXAMPLE_ORIGIN}${path}?${opts.query}"` : `${EXAMPLE_ORIGIN}${path}`;
  const verb = method === 'GET' || (method === 'POST' && opts.body !== undefined) ? '' : `-X ${method} `;
  const lines = [`curl ${opts.stream ? '-N ' : ''}${verb}${url}`];
  if (!opts.keyless) lines.push('  -H "Authorization: Bearer $KEY"');
  if (opts.body !== undefined) lines.push("  -H 'Content-Type: application/json'", `  -d ${shellQuote(literal(opts.body, false, 2, 6))}`);
  return lines.join(' \\\n');
}

function curl(id: string, method: string, template: string, ex: Example, keyless: boolean): string {
  let i = 0;
  const path = template.replace(/\{[^}]+\}/g, () => ex.args[i++] ?? '');
  if (id === 'agents-execute') {
    return EXECUTE.map((run) => `# ${run.sh}\n${curlCommand(method, path, { body: run.body, stream: 'stream' in run.body })}`).join('\n\n');
  }
  if (id === 'executions-stream') return curlCommand(method, path, { stream: true });
  if (isAnalytics(ex.where)) return `# This month so far, a bucket a day:\n${curlCommand(method, path, { query: 'start=$(date -u +%Y-%m-01)' })}`;
  return curlCommand(method, path, { body: method === 'GET' ? undefined : ex.body, keyless });
}

/** Adds the curl and typed-client examples to every operation the client covers. */
export function addCodeSamples(doc: OpenAPIObject): void {
  const where = OPERATIONS as Record<string, string>;
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item) as [string, OperationObject][]) {
      const id = op?.operationId;
      if (!id || !where[id]) continue;
      const ex = exampleOf(id, op, where[id]);
      const keyless = Array.isArray(op.security) && op.security.length === 0;
      op['x-codeSamples'] = [
        { lang: 'curl', label: 'curl', source: curl(id, method.toUpperCase(), template, ex, keyless) },
        { lang: 'typescript', label: 'TypeScript (agent-automation-sdk)', source: PREAMBLE + typescript(id, ex) },
      ];
    }
  }
}
