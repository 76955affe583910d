import type { OpenAPIObject, OperationObject, ParameterObject, RequestBodyObject, SchemaObject } from 'openapi3-ts/oas31';
import { OPERATIONS } from '../../sdk/src/operations';

// Each operation's example with the typed client (docs/sdk.md), as `x-codeSamples` — the
// reference at /docs shows it beside curl. Made from the client's map of operations
// (sdk/src/operations.ts) and the document's own examples, so it follows both.

const PREAMBLE = "import { Client } from 'agent-automation-sdk';\n\nconst client = new Client({ apiKey: process.env.AGENTS_API_KEY!, baseUrl: 'http://localhost:3000' });\n\n";

const literal = (value: unknown) => JSON.stringify(value, null, 2);

/** Ids for path parameters the document gives no example of, by resource. */
const IDS: Record<string, string> = {
  executions: 'exe_01JD8X41B2C3D4E5F6G7H8J9KA',
  conversations: 'conv_01JD8X40A0Z9Y8X7W6V5T4S3R2',
  agents: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK',
};

/** Bodies worth more than the required fields' examples. */
const BODIES: Record<string, Record<string, unknown>> = {
  'agents-create': { name: 'Order support', model: 'gpt-4o-mini', instructions: 'Answer questions about orders. Be brief.' },
  'budgets-create': { name: 'Monthly cap', target: { type: 'workspace' }, limit: { usd: '25.00' }, period: 'month', action: 'block' },
  'keys-create': { name: 'Production backend', scopes: ['agents:read', 'agents:execute'] },
};

/** A path parameter's example (`agt_…`), else the resource's. */
function pathArgs(op: OperationObject, resource: string): string[] {
  return (op.parameters ?? [])
    .filter((p): p is ParameterObject => !('$ref' in p) && p.in === 'path')
    .map((p) => literal((p.example ?? (p.schema as SchemaObject | undefined)?.example ?? IDS[resource] ?? p.name) as string));
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

/** The required query parameters' examples (analytics' `start`). */
function queryExample(op: OperationObject): Record<string, unknown> {
  const params = (op.parameters ?? []).filter((p): p is ParameterObject => !('$ref' in p) && p.in === 'query' && p.required === true);
  return Object.fromEntries(params.map((p) => [p.name, p.example ?? (p.schema as SchemaObject | undefined)?.example]));
}

function sample(id: string, op: OperationObject, where: string): string {
  const [resource, method = ''] = where.split('.') as [string, string?];
  const args = pathArgs(op, resource);
  const call = (extra: string[]) => `client.${where}(${[...args, ...extra].join(', ')})`;
  if (id === 'agents-execute') {
    return (
      `// Wait for the answer (a retry after a lost answer never runs the agent twice):\n` +
      `const execution = await ${call(["{ input: 'What is the status of order 1042?', wait: true }"])};\nconsole.log(execution.output);\n\n` +
      `// Or stream its events (resumed after a dropped connection, none lost or repeated):\n` +
      `for await (const event of ${call(["{ input: 'And order 1043?', stream: true }"])}) {\n  if (event.type === 'text.delta') process.stdout.write(event.delta);\n}`
    );
  }
  if (id === 'executions-stream') return `for await (const event of ${call([])}) {\n  console.log(event.type);\n}`;
  if (id === 'executions-approvals') {
    return `const execution = await ${call(["{ decisions: [{ toolCallId: 'call_01JD8X41B2C3D4E5F6G7H8J9KA', approve: true }], wait: true }"])};`;
  }
  if (/\.list(Deliveries)?$/.test(where) && where !== 'models.list') {
    const item = where === 'webhooks.listDeliveries' ? 'delivery' : where === 'auditEvents.list' ? 'record' : resource.replace(/s$/, '');
    return `for await (const ${item} of ${call(['{ limit: 20 }'])}) {\n  console.log(${item}.id);\n}`;
  }
  const body = BODIES[id] ?? bodyExample(op);
  const query = queryExample(op);
  const extra = body ? [literal(body)] : Object.keys(query).length ? [literal(query)] : [];
  const name = method === 'delete' ? 'deleted' : ['create', 'retrieve', 'update'].includes(method) ? resource.replace(/s$/, '') : 'result';
  return `const ${name} = await ${call(extra)};`;
}

/** Adds the typed client's example to every operation it covers. */
export function addCodeSamples(doc: OpenAPIObject): void {
  const where = OPERATIONS as Record<string, string>;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as OperationObject[]) {
      const id = op?.operationId;
      if (!id || !where[id]) continue;
      op['x-codeSamples'] = [{ lang: 'typescript', label: 'TypeScript (agent-automation-sdk)', source: PREAMBLE + sample(id, op, where[id]) }];
    }
  }
}
