import { ApiError } from '../../platform/errors';

// Structured outputs (docs/versions.md, "Structured outputs"): the JSON Schema an agent's (or one
// execute's) final answer must match, in the subset strict providers accept (OpenAI's strict
// `json_schema`): objects with `properties`, every property `required` and `additionalProperties:
// false`; arrays with `items`; `enum`; strings, numbers, integers, booleans, null (a type list
// such as `["string", "null"]` for a nullable value); `anyOf`; `description` and `title` anywhere.
// Depth ≤ 5, ≤ 100 properties in all, ≤ 16 KB. Anything else is refused naming the construct
// and where it is, before anything is stored.

export const OUTPUT_SCHEMA_LIMITS = { depth: 5, properties: 100, bytes: 16_384 } as const;

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** The keywords a node may carry, by what it is. */
const COMMON = new Set(['type', 'description', 'title', 'enum', 'anyOf']);
const OBJECT = new Set([...COMMON, 'properties', 'required', 'additionalProperties']);
const ARRAY = new Set([...COMMON, 'items']);

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Throws a 400 on `param` naming what is outside the subset (and where), else returns the schema. */
export function checkOutputSchema(schema: unknown, param = 'outputSchema'): Record<string, unknown> {
  const refuse = (at: string, why: string) => new ApiError('invalid_parameter', `'${param}' ${why}${at ? ` (at ${at})` : ''}; see docs/versions.md, "Structured outputs"`, { param });
  if (!isNode(schema)) throw refuse('', 'must be a JSON Schema object');
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > OUTPUT_SCHEMA_LIMITS.bytes) throw refuse('', `must be at most 16 KB as JSON (it is ${bytes} bytes)`);
  if (schema.type !== 'object') throw refuse('', 'must describe an object at its root ("type": "object"), as strict providers require');
  let properties = 0;
  const visit = (node: unknown, at: string, depth: number): void => {
    if (!isNode(node)) throw refuse(at, 'has a schema that is not an object');
    if (depth > OUTPUT_SCHEMA_LIMITS.depth) throw refuse(at, `nests deeper than ${OUTPUT_SCHEMA_LIMITS.depth} levels`);
    const types = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
    for (const t of types) if (typeof t !== 'string' || !TYPES.has(t)) throw refuse(at, `uses the type ${JSON.stringify(t)}, which is not supported`);
    const allowed = types.includes('object') ? OBJECT : types.includes('array') ? ARRAY : COMMON;
    for (const key of Object.keys(node)) {
      if (!allowed.has(key)) throw refuse(at, `uses "${key.slice(0, 40)}", which strict structured outputs do not accept`);
    }
    if (types.length === 0 && node.anyOf === undefined && node.enum === undefined) throw refuse(at, 'has a schema without "type", "anyOf" or "enum"');
    for (const text of ['description', 'title'] as const) if (node[text] !== undefined && typeof node[text] !== 'string') throw refuse(at, `has a "${text}" that is not a string`);
    if (node.enum !== undefined) {
      if (!Array.isArray(node.enum) || node.enum.length === 0 || node.enum.length > 500) throw refuse(at, 'has an "enum" that is not a list of 1–500 values');
      if (node.enum.some((v) => v !== null && typeof v === 'object')) throw refuse(at, 'has an "enum" with an object or list among its values');
    }
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) throw refuse(at, 'has an "anyOf" that is not a non-empty list');
      node.anyOf.forEach((alt, i) => visit(alt, `${at}.anyOf.${i}`.replace(/^\./, ''), depth + 1));
    }
    if (types.includes('object')) {
      if (!isNode(node.properties)) throw refuse(at, 'has an object without "properties"');
      if (node.additionalProperties !== false) throw refuse(at, 'has an object without "additionalProperties": false');
      const keys = Object.keys(node.properties);
      if (keys.includes('__proto__')) throw refuse(at, "has a property named '__proto__'");
      const required = node.required;
      if (!Array.isArray(required) || required.length !== keys.length || !keys.every((k) => required.includes(k))) {
        throw refuse(at, 'has an object whose "required" does not list every property (strict outputs make optional values nullable instead)');
      }
      properties += keys.length;
      if (properties > OUTPUT_SCHEMA_LIMITS.properties) throw refuse(at, `has more than ${OUTPUT_SCHEMA_LIMITS.properties} properties in all`);
      for (const key of keys) visit(node.properties[key], `${at}.properties.${key.slice(0, 40)}`.replace(/^\./, ''), depth + 1);
    }
    if (types.includes('array')) {
      if (!isNode(node.items)) throw refuse(at, 'has an array without one "items" schema');
      visit(node.items, `${at}.items`.replace(/^\./, ''), depth + 1);
    }
  };
  visit(schema, '', 1);
  return schema;
}

/** zod drops a `__proto__` key without a word: the raw input's schema is walked for one first (400 on `param`). */
export function assertNoProtoKey(raw: unknown, param = 'outputSchema'): void {
  const stack: unknown[] = [raw];
  let seen = 0;
  while (stack.length > 0 && seen++ < 100_000) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    for (const key of Object.keys(value)) {
      if (key === '__proto__') throw new ApiError('invalid_parameter', `'${param}' cannot have a key named '__proto__'`, { param });
      stack.push((value as Record<string, unknown>)[key]);
    }
  }
}
