import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPIObject, OperationObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import { buildSdk } from '../../scripts/sdk-build';

// What test/sdk/examples.int.test.ts needs to run the docs' examples as a reader would: the
// examples themselves (the document's x-codeSamples and its introduction's code blocks, the
// README's and docs/sdk.md's TypeScript), a package directory where `agent-automation-sdk` is
// the built client, one tsc run over every TypeScript example, and a shell and a node to run them.

const root = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

export interface Example {
  /** The operationId, or `guide-…` for the introduction's blocks. */
  id: string;
  lang: 'sh' | 'ts';
  source: string;
}

/** The fenced blocks of `lang` in markdown. */
export function fenced(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** Every example the document holds: each operation's curl and TypeScript, and the introduction's blocks. */
export function documentExamples(doc: OpenAPIObject): Example[] {
  const out: Example[] = [];
  const intro = doc.info.description ?? '';
  fenced(intro, 'sh').forEach((source, i) => out.push({ id: `guide-${i}`, lang: 'sh', source }));
  fenced(intro, 'ts').forEach((source, i) => out.push({ id: `guide-${i}`, lang: 'ts', source }));
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as OperationObject[]) {
      for (const sample of (op['x-codeSamples'] ?? []) as { lang: string; source: string }[]) {
        out.push({ id: op.operationId!, lang: sample.lang === 'curl' ? 'sh' : 'ts', source: sample.source });
      }
    }
  }
  return out;
}

// ---- Requests that leave out everything the API defaults ----

type Schema = SchemaObject | ReferenceObject;

function resolve(doc: OpenAPIObject, schema: Schema | undefined): SchemaObject {
  if (schema && '$ref' in schema) return doc.components!.schemas![schema.$ref.split('/').pop()!] as SchemaObject;
  return schema ?? {};
}

/** Whether a value of `schema` holds objects of its own (an agent's `tools`), whose fields have defaults too. */
function holdsObjects(doc: OpenAPIObject, schema: Schema | undefined): boolean {
  const s = resolve(doc, schema);
  const inner = s.type === 'array' ? resolve(doc, s.items as Schema) : s;
  return !!(inner.properties || inner.oneOf?.some((v) => resolve(doc, v).properties));
}

/**
 * Values of `schema` holding only what it requires (every optional field, so every defaulted
 * one, left out): one value per variant of each union. With `nested`, optional fields that hold
 * objects are given, each object as small as it may be, so every kind of tool appears too.
 */
export function minimalValues(doc: OpenAPIObject, input: Schema | undefined, nested = false): unknown[] {
  const s = resolve(doc, input);
  if (s.const !== undefined) return [s.const];
  if (s.enum) return [s.enum[0]];
  const union = s.oneOf ?? s.anyOf;
  if (union) {
    const variants = union.map((v) => resolve(doc, v)).filter((v) => v.type !== 'null');
    return variants.length ? variants.flatMap((v) => minimalValues(doc, v, nested)) : [null];
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type ?? (s.properties ? 'object' : undefined)) {
    case 'object': {
      const names = Object.keys(s.properties ?? {}).filter((name) => s.required?.includes(name) || (nested && holdsObjects(doc, s.properties![name])));
      const fields = names.map((name) => [name, minimalValues(doc, s.properties?.[name], nested)] as const);
      const n = Math.max(1, ...fields.map(([, values]) => values.length));
      return Array.from({ length: n }, (_, i) => Object.fromEntries(fields.map(([name, values]) => [name, values[Math.min(i, values.length - 1)]])));
    }
    case 'array':
      return [minimalValues(doc, s.items as Schema, nested)];
    case 'string':
      return [typeof s.example === 'string' ? s.example : 'x'];
    case 'integer':
    case 'number':
      return [typeof s.example === 'number' ? s.example : (s.minimum ?? 1)];
    case 'boolean':
      return [true];
    default:
      return [null];
  }
}

const jsonBody = (doc: OpenAPIObject, op: OperationObject) => resolve(doc, (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.['application/json']?.schema);

/**
 * A TypeScript file that type-checks when requests may leave out every field the API defaults
 * (each operation's minimal bodies, typed `Body<op>`), and answers carry every such field
 * (`Present<…>`: each defaulted field of an input schema is not optional in its answer's).
 */
export function defaultsCheck(doc: OpenAPIObject): string {
  const lines = [
    "import type { Answer, Body, Schemas } from 'agent-automation-sdk';",
    '',
    '/** true when `K` is not optional in `T`. */',
    'type Present<T, K extends keyof T> = {} extends Pick<T, K> ? false : true;',
    '',
  ];
  const schemas = (doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as OperationObject[]) {
      const body = jsonBody(doc, op);
      if (!body.properties) continue;
      const values = new Set([...minimalValues(doc, body), ...minimalValues(doc, body, true)].map((v) => JSON.stringify(v)));
      [...values].forEach((value, i) => lines.push(`export const ${op.operationId!.replace(/-/g, '_')}_${i}: Body<'${op.operationId}'> = ${value};`));
      const answer = Object.entries(op.responses ?? {}).find(([status]) => /^20[012]$/.test(status))?.[1] as { content?: Record<string, { schema?: Schema }> } | undefined;
      const answered = resolve(doc, answer?.content?.['application/json']?.schema);
      for (const [name, prop] of Object.entries(body.properties)) {
        if ('default' in resolve(doc, prop) && answered.properties?.[name]) lines.push(`export const ${op.operationId!.replace(/-/g, '_')}_${name}: Present<Answer<'${op.operationId}'>, '${name}'> = true;`);
      }
    }
  }
  for (const [name, schema] of Object.entries(schemas)) {
    const output = schemas[name.replace(/Input$/, '')];
    if (!name.endsWith('Input') || !output?.properties) continue;
    for (const [field, prop] of Object.entries(schema.properties ?? {})) {
      if ('default' in resolve(doc, prop) && output.properties[field]) lines.push(`export const ${name}_${field}: Present<Schemas['${name.replace(/Input$/, '')}'], '${field}'> = true;`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---- A reader's directory: the built client installed, the examples compiled ----

/** Builds the client into `dir`/node_modules/agent-automation-sdk, as `npm install path/to/sdk` would put it. */
export async function installBuiltClient(dir: string): Promise<void> {
  const pkg = path.join(dir, 'node_modules', 'agent-automation-sdk');
  await buildSdk(path.join(pkg, 'dist'));
  cpSync(path.join(root, 'sdk', 'package.json'), path.join(pkg, 'package.json'));
  writeFileSync(path.join(dir, 'package.json'), '{"type": "module", "private": true}\n');
}

/**
 * Type-checks every file of `sources` (name → TypeScript) in one tsc run against the installed
 * client, as a reader's ES module project would (NodeNext, strict), and emits them to `dir`/out.
 * Answers tsc's output, empty when everything compiled.
 */
export async function compile(dir: string, sources: Record<string, string>): Promise<string> {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  for (const [name, source] of Object.entries(sources)) writeFileSync(path.join(dir, 'src', `${name}.ts`), `${source}\nexport {};\n`);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        typeRoots: [path.join(root, 'node_modules', '@types')],
        rootDir: 'src',
        outDir: 'out',
      },
      include: ['src/*.ts'],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir], { cwd: dir });
    return '';
  } catch (err) {
    return (err as { stdout?: string }).stdout || String(err);
  }
}

// ---- Running them ----

export interface Ran {
  /** What the reader sees (stdout). */
  out: string;
  /** Every answer's status and body, in order. */
  answers: { status: number; body: string }[];
}

/** A clean environment (none of the test server's settings): the reader's PATH and HOME, and `extra`. */
const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...extra });

/**
 * Runs a shell example with bash (-e: a failing command fails it). curl reads the status of
 * each answer from $CURL_HOME/.curlrc's write-out, so the example runs unchanged.
 *
 * `--norc`: bash runs ~/.bashrc even for `bash -c` when its stdin is a socket and SHLVL is
 * unset (its rule for a remote shell), and node's pipes are sockets. A ~/.bashrc that starts
 * pyenv took ~450 ms per example (docs/testing.md). A reader's terminal runs none either.
 */
export async function runShell(dir: string, source: string, vars: Record<string, string>): Promise<Ran> {
  const marker = '@@answer-status';
  writeFileSync(path.join(dir, '.curlrc'), `silent\nshow-error\nwrite-out = "\\n${marker} %{http_code}\\n"\n`);
  const { stdout } = await run('bash', ['--norc', '-e', '-c', source], { cwd: dir, env: env({ ...vars, CURL_HOME: dir }), timeout: 120_000 });
  const parts = stdout.split(new RegExp(`\\n${marker} (\\d+)\\n`));
  const answers: Ran['answers'] = [];
  for (let i = 1; i < parts.length; i += 2) answers.push({ status: Number(parts[i]), body: parts[i - 1]! });
  return { out: stdout, answers };
}

/** The preload that records every answer the client gets, without changing what it gets. */
const RECORDER = `import { appendFileSync } from 'node:fs';
const original = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const res = await original(input, init);
  const copy = res.clone();
  void copy.text().then((body) => appendFileSync(process.env.ANSWERS_FILE, JSON.stringify({ status: res.status, body }) + '\\n'), () => {});
  return res;
};
`;

/** Runs a compiled TypeScript example (`out/<name>.js`) with node, `replace` applied to it first. */
export async function runNode(dir: string, name: string, replace: (source: string) => string, vars: Record<string, string>): Promise<Ran> {
  writeFileSync(path.join(dir, 'recorder.mjs'), RECORDER);
  const file = path.join(dir, 'out', `run-${name}.js`);
  writeFileSync(file, replace(readFileSync(path.join(dir, 'out', `${name}.js`), 'utf8')));
  const answersFile = path.join(dir, `answers-${name}.jsonl`);
  writeFileSync(answersFile, '');
  const { stdout } = await run(process.execPath, ['--import', './recorder.mjs', file], { cwd: dir, env: env({ ...vars, ANSWERS_FILE: answersFile }), timeout: 120_000 });
  const answers = readFileSync(answersFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Ran['answers'][number]);
  return { out: stdout, answers };
}
