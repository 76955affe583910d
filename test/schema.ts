// A small JSON Schema checker for the keywords our generated OpenAPI 3.1 document uses, to
// check real responses against the documented schemas. Unknown keywords fail loudly rather
// than pass silently.

export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  maxProperties?: number;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

// `discriminator` only tells a reader which `oneOf` branch to try: the branches are checked all the same.
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', 'default', 'deprecated', 'readOnly', 'writeOnly', 'discriminator']);
const KNOWN = new Set([
  '$ref', 'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'allOf',
  'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'propertyNames', 'maxProperties',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The problems of `value` against `schema` (empty: valid). `root` resolves `#/…` refs. */
export function checkSchema(schema: Schema, value: unknown, root: unknown, at = '$'): string[] {
  for (const k of Object.keys(schema)) {
    if (!KNOWN.has(k) && !ANNOTATIONS.has(k)) return [`${at}: unsupported schema keyword '${k}'`];
  }
  if (schema.$ref) {
    let target: unknown = root;
    for (const part of schema.$ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown>)?.[part];
    if (!target) return [`${at}: unresolved $ref ${schema.$ref}`];
    return checkSchema(target as Schema, value, root, at);
  }
  const errors: string[] = [];
  const t = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const ok = types.includes(t) || (t === 'integer' && types.includes('number'));
    if (!ok) return [`${at}: expected ${types.join('|')}, got ${t}`];
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if ('const' in schema && schema.const !== value) errors.push(`${at}: expected const ${JSON.stringify(schema.const)}`);
  if (schema.anyOf && !schema.anyOf.some((s) => checkSchema(s, value, root, at).length === 0)) errors.push(`${at}: matches no anyOf branch`);
  if (schema.oneOf && schema.oneOf.filter((s) => checkSchema(s, value, root, at).length === 0).length !== 1) {
    errors.push(`${at}: does not match exactly one oneOf branch`);
  }
  for (const s of schema.allOf ?? []) errors.push(...checkSchema(s, value, root, at));
  if (typeof value === 'string') {
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) errors.push(`${at}: not a date-time`);
    if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: above ${schema.maximum}`);
  }
  if (t === 'array' && schema.items) {
    (value as unknown[]).forEach((v, i) => errors.push(...checkSchema(schema.items!, v, root, `${at}[${i}]`)));
  }
  if (t === 'object') {
    const obj = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${at}: missing required '${r}'`);
    if (schema.maxProperties !== undefined && Object.keys(obj).length > schema.maxProperties) errors.push(`${at}: more than ${schema.maxProperties} properties`);
    if (schema.propertyNames) for (const k of Object.keys(obj)) errors.push(...checkSchema(schema.propertyNames, k, root, `${at}[${JSON.stringify(k)}]`));
    for (const [k, v] of Object.entries(obj)) {
      const prop = schema.properties?.[k];
      if (prop) errors.push(...checkSchema(prop, v, root, `${at}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: undocumented property '${k}'`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...checkSchema(schema.additionalProperties, v, root, `${at}.${k}`));
    }
  }
  return errors;
}
