import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { canonicalJson } from '../../platform/canonical-json';

// Runs in a worker thread of the schema pool (schema-pool.ts, docs/security.md): compiles the
// JSON Schemas of tool parameters with ajv and validates a model's arguments against them, off
// the server's event loop, where the pool can stop it when it overruns its budget.
// - `pattern` and `patternProperties` run on RE2 (re2js, linear time), never on the
//   backtracking RegExp engine: `^(a+)+$` against 26 a's and a b took 5 s there.
// - `inlineRefs: false`: ajv copies a referenced definition into every place that refers to
//   it; an 11 KB schema with 200 refs to one 150-property definition took 14.6 s to compile
//   that way, 0.16 s without.
// - Validators are cached by a SHA-256 of the schema's canonical JSON (keys sorted: jsonb
//   reorders them), least recently used first out, so runs do not compile again what create
//   compiled in this thread. The hash is made here too: 20 tools' worth took the event loop
//   10–75 ms.

export interface SchemaTask {
  kind: 'compile' | 'validate';
  schema: Record<string, unknown>;
  args?: unknown;
  /** Set to Date.now() as the task starts here: the pool times the run, not the wait before it. */
  started: BigInt64Array;
}

/** `ms`: how long the task ran in this thread (the budget holds even when the pool's timer fires late). */
export type SchemaResult = ({ ok: true } | { ok: false; message: string }) & { ms: number };

/** ajv's `code.regExp` engine: RE2 syntax (no lookaround, no backreferences), linear-time matching. */
function re2(pattern: string): { test(input: string): boolean; toString(): string } {
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`pattern ${JSON.stringify(pattern)} is not supported (${reason}); patterns run on RE2: no lookahead, lookbehind or backreferences`);
  }
  return { test: (input) => re.test(input), toString: () => pattern };
}
/** Only read by ajv's standalone code generation, which we do not use. */
re2.code = 're2js';

const options = { strict: false, logger: false, inlineRefs: false, code: { regExp: re2 } } as const;
const drafts = { draft2020: new Ajv2020(options), draft07: new Ajv(options) };

const CACHE_SIZE = 256;
const cache = new Map<string, ValidateFunction>();

/** Compiles with the schema's draft, then forgets it in ajv (which would keep every schema and `$id` forever). */
function compile(schema: Record<string, unknown>): ValidateFunction {
  const ajv = typeof schema.$schema === 'string' && schema.$schema.includes('draft-07') ? drafts.draft07 : drafts.draft2020;
  const known = new Set([...Object.keys(ajv.schemas), ...Object.keys(ajv.refs)]);
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
    for (const key of [...Object.keys(ajv.schemas), ...Object.keys(ajv.refs)]) if (!known.has(key)) ajv.removeSchema(key);
  }
}

function cached(schema: Record<string, unknown>): ValidateFunction {
  const hash = createHash('sha256').update(canonicalJson(schema)).digest('hex');
  const hit = cache.get(hash);
  if (hit) {
    cache.delete(hash);
    cache.set(hash, hit);
    return hit;
  }
  const validate = compile(schema);
  cache.set(hash, validate);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return validate;
}

/** The first error, as "/path must …" (with the offending property for additionalProperties). */
function describe(error: ErrorObject | undefined): string {
  if (!error) return 'they do not match the schema';
  const extra = typeof error.params.additionalProperty === 'string' ? ` ('${error.params.additionalProperty}')` : '';
  return `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${extra}`;
}

// The first compile of a thread pays for ajv's meta-schemas and the JIT: here, before any task.
for (const schema of [{ type: 'object', properties: { a: { type: 'string', pattern: '^a' } } }, { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }]) {
  compile(schema)({ a: 'a' });
}

export default function run(task: SchemaTask): SchemaResult {
  Atomics.store(task.started, 0, BigInt(Date.now()));
  const t0 = performance.now();
  const ms = () => performance.now() - t0;
  let validate: ValidateFunction;
  try {
    validate = cached(task.schema);
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err), ms: ms() };
  }
  if (task.kind === 'compile' || validate(task.args)) return { ok: true, ms: ms() };
  return { ok: false, message: describe(validate.errors?.[0]), ms: ms() };
}
