import type { OpenAPIObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';

// Turns the OpenAPI document's JSON Schemas into what a reader needs: one row per field
// (nested fields as dotted paths), a short type label, constraints in words, and an example.

export type SchemaLike = SchemaObject | ReferenceObject;

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  notes: string[];
}

export const isRef = (value: unknown): value is ReferenceObject =>
  typeof value === 'object' && value !== null && '$ref' in value;

/** Follows a local `#/components/...` reference (once; our documents do not chain them). */
export function resolve<T extends object>(doc: OpenAPIObject, value: T | ReferenceObject): T {
  if (!isRef(value)) return value;
  let node: unknown = doc;
  for (const part of value.$ref.replace(/^#\//, '').split('/')) {
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  }
  return (node ?? {}) as T;
}

const isNull = (s: SchemaObject) => s.type === 'null';

/** The schema without its `| null` alternative, and whether it had one. */
function unwrapNullable(doc: OpenAPIObject, value: SchemaLike): { schema: SchemaObject; nullable: boolean } {
  const s = resolve<SchemaObject>(doc, value);
  const variants = s.anyOf ?? s.oneOf;
  if (variants) {
    const resolved = variants.map((v) => resolve<SchemaObject>(doc, v));
    const rest = resolved.filter((v) => !isNull(v));
    if (rest.length === 1 && rest.length < resolved.length) return { schema: { ...rest[0], description: s.description ?? rest[0]!.description }, nullable: true };
  }
  if (Array.isArray(s.type) && s.type.includes('null')) {
    const types = s.type.filter((t) => t !== 'null');
    return { schema: { ...s, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  return { schema: s, nullable: false };
}

export function typeLabel(doc: OpenAPIObject, value: SchemaLike): string {
  const { schema: s, nullable } = unwrapNullable(doc, value);
  let label: string;
  const variants = s.anyOf ?? s.oneOf;
  if (s.const !== undefined) label = JSON.stringify(s.const);
  else if (variants) label = [...new Set(variants.map((v) => typeLabel(doc, v)))].join(' | ');
  else if (s.type === 'array') label = s.items ? `array of ${typeLabel(doc, s.items)}` : 'array';
  else if (Array.isArray(s.type)) label = s.type.join(' | ');
  else if (s.type) label = s.format ? `${s.type} (${s.format})` : s.type;
  else if (s.properties) label = 'object';
  else label = 'any';
  return nullable ? `${label} | null` : label;
}

function notesOf(s: SchemaObject): string[] {
  const notes: string[] = [];
  const enumValues = s.enum ?? (s.type === 'array' && s.items && !isRef(s.items) ? s.items.enum : undefined);
  if (enumValues) notes.push(`One of: ${enumValues.map((v) => String(v)).join(', ')}`);
  if (s.minLength !== undefined || s.maxLength !== undefined) {
    notes.push(`${s.minLength ?? 0}–${s.maxLength ?? '∞'} characters`);
  }
  if (s.minimum !== undefined || s.maximum !== undefined) notes.push(`Range ${s.minimum ?? '−∞'}–${s.maximum ?? '∞'}`);
  if (s.default !== undefined) notes.push(`Default: ${JSON.stringify(s.default)}`);
  if (s.example !== undefined && typeof s.example !== 'object') notes.push(`Example: ${String(s.example)}`);
  return notes;
}

/** The sub-schema whose properties a field expands into (an object, or an array of objects). */
function expansion(doc: OpenAPIObject, s: SchemaObject): { schema: SchemaObject; suffix: string } | null {
  if (s.properties) return { schema: s, suffix: '.' };
  if (s.type === 'array' && s.items) {
    const item = unwrapNullable(doc, s.items).schema;
    if (item.properties) return { schema: item, suffix: '[].' };
  }
  return null;
}

export function fieldRows(doc: OpenAPIObject, value: SchemaLike, prefix = '', depth = 0): FieldRow[] {
  const s = unwrapNullable(doc, value).schema;
  const required = new Set(s.required ?? []);
  const rows: FieldRow[] = [];
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    const outer = isRef(prop) ? undefined : prop;
    const inner = unwrapNullable(doc, prop).schema;
    const name = `${prefix}${key}`;
    rows.push({
      name,
      type: typeLabel(doc, prop),
      required: required.has(key),
      description: outer?.description ?? inner.description,
      notes: notesOf(inner),
    });
    const nested = depth < 4 ? expansion(doc, inner) : null;
    if (nested) rows.push(...fieldRows(doc, nested.schema, `${name}${nested.suffix}`, depth + 1));
  }
  return rows;
}

/** A plausible value for the schema, from its examples, defaults and types. */
export function exampleOf(doc: OpenAPIObject, value: SchemaLike, depth = 0): unknown {
  const s = unwrapNullable(doc, value).schema;
  if (s.example !== undefined) return s.example;
  if (s.examples?.[0] !== undefined) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.[0] !== undefined) return s.enum[0];
  const variant = s.anyOf?.[0] ?? s.oneOf?.[0];
  if (variant) return exampleOf(doc, variant, depth + 1);
  if (depth > 5) return null;
  if (s.properties) {
    return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, exampleOf(doc, v, depth + 1)]));
  }
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'array':
      return s.items ? [exampleOf(doc, s.items, depth + 1)] : [];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      return s.format === 'date-time' ? '2026-11-21T20:31:07.123Z' : 'string';
    default:
      return null;
  }
}
