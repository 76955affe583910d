import { RE2JS } from 're2js';
import { z } from 'zod';
import { ApiError } from '../../platform/errors';
import { MAX_MODEL_LENGTH, PROVIDERS } from '../models/providers';
import { assertCompiles } from '../tools/schema-pool';

// The scorers of an eval as the API accepts them: what each one checks of a run, and its bounds.
// zod checks the shape (and that a regex compiles under RE2); checkScorers() checks what zod
// cannot (sizes, JSON Schemas compiled in the schema pool, `__proto__` keys). How a run is
// scored: scorers.ts; the llm_judge scorer runs a judge execution elsewhere.

/** Scorers one eval may have. */
export const MAX_SCORERS = 10;
/** Serialized size limit of a json_schema scorer's `schema` and of one expected call's `arguments` (bytes of its JSON). */
export const MAX_SCORER_JSON_BYTES = 16 * 1024;
/** Names a scorer cannot have: they would be looked up on every object's prototype. */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export const SCORER_TYPES = ['exact_match', 'contains', 'regex', 'json_schema', 'tool_trajectory', 'max_tool_calls', 'llm_judge'] as const;
export type ScorerType = (typeof SCORER_TYPES)[number];

const name = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'must be 1–64 letters, digits, `_`, `-` or `.`')
  .meta({ description: 'Names the scorer in results: 1–64 letters, digits, `_`, `-` or `.`, unique in the eval ignoring case. Default: its `type`.', example: 'refund_policy' })
  .optional();

/** Why RE2 refuses a pattern, or null when it compiles. */
export function re2Refusal(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const re2Hint = 'patterns run on RE2: no lookahead, lookbehind or backreferences';

const jsonObject = z.record(z.string(), z.unknown());

const exactMatch = z
  .strictObject({
    type: z.literal('exact_match').meta({ description: 'The output equals the item’s `expected`.', example: 'exact_match' }),
    name,
  })
  .meta({
    description:
      'Passes when the output equals the item’s `expected`: a string is compared to the output text, surrounding whitespace trimmed; ' +
      'an object or array to the structured output (or the output parsed as JSON), key order ignored. Items without `expected` are not scored.',
  });

const contains = z
  .strictObject({
    type: z.literal('contains').meta({ example: 'contains' }),
    value: z.string().min(1).max(10_000).meta({ description: 'The text the output must contain (1–10,000 characters).', example: 'refund' }),
    ignoreCase: z.boolean().default(false).meta({ description: 'Compare ignoring case. Default: `false`.', example: true }),
    name,
  })
  .meta({ description: 'Passes when the output text contains `value`.' });

const regex = z
  .strictObject({
    type: z.literal('regex').meta({ example: 'regex' }),
    pattern: z.string().min(1).max(1000).meta({
      description: 'An RE2 regular expression (1–1,000 characters; no lookaround or backreferences), searched anywhere in the output: anchor it with `^…$` to match the whole.',
      example: '^Order #\\d+ ',
    }),
    name,
  })
  .superRefine((scorer, ctx) => {
    const refusal = re2Refusal(scorer.pattern);
    if (refusal) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `the regex scorer '${scorer.name ?? 'regex'}' has a pattern RE2 cannot compile (${refusal}); ${re2Hint}`,
      });
    }
  })
  .meta({ description: 'Passes when the RE2 `pattern` matches somewhere in the output text (linear-time matching).' });

const jsonSchema = z
  .strictObject({
    type: z.literal('json_schema').meta({ example: 'json_schema' }),
    schema: jsonObject.meta({
      description: 'A JSON Schema (draft 2020-12, or draft-07 when `$schema` says so), at most 16 KB as JSON.',
      example: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    }),
    name,
  })
  .meta({ description: 'Passes when the structured output (or the output parsed as JSON) is valid against `schema`.' });

const expectedCall = z.strictObject({
  tool: z.string().min(1).max(200).meta({ description: 'The tool’s name as the model calls it (an MCP tool: `<server>_<tool>`).', example: 'lookup_order' }),
  arguments: jsonObject.optional().meta({ description: 'When given, the call’s arguments must equal these (key order ignored); at most 16 KB as JSON.', example: { orderId: '1042' } }),
});

const toolTrajectory = z
  .strictObject({
    type: z.literal('tool_trajectory').meta({ example: 'tool_trajectory' }),
    expected: z.array(expectedCall).min(1).max(50).meta({ description: 'The tool calls expected (1–50).', example: [{ tool: 'lookup_order', arguments: { orderId: '1042' } }] }),
    mode: z.enum(['exact', 'in_order', 'any_order']).default('in_order').meta({
      description:
        '`exact`: the calls are exactly these, in this order. `in_order`: these calls happen in this order, others may come between. ' +
        '`any_order`: each of these calls happens, in any order. Default: `in_order`.',
      example: 'in_order',
    }),
    name,
  })
  .meta({ description: 'Scores the run’s tool calls against the expected ones: the share of expected calls found (`exact`: 1 or 0).' });

const maxToolCalls = z
  .strictObject({
    type: z.literal('max_tool_calls').meta({ example: 'max_tool_calls' }),
    max: z.int().min(0).max(1000).meta({ description: 'The most tool calls the run may make (0–1,000).', example: 5 }),
    name,
  })
  .meta({ description: 'Passes when the run made at most `max` tool calls.' });

const llmJudge = z
  .strictObject({
    type: z.literal('llm_judge').meta({ example: 'llm_judge' }),
    model: z
      .string()
      .min(1)
      .max(MAX_MODEL_LENGTH)
      .refine((m) => {
        const slash = m.indexOf('/');
        return slash > 0 && (PROVIDERS as readonly string[]).includes(m.slice(0, slash)) && /^[^\s\p{Cc}]+$/u.test(m.slice(slash + 1));
      }, `must be 'provider/model' with a provider among ${PROVIDERS.join(', ')}`)
      .meta({ description: 'The judge’s model, as `provider/model`.', example: 'openai/gpt-4o-mini' }),
    rubric: z.string().min(1).max(4000).meta({ description: 'What the judge grades the output on (1–4,000 characters).', example: 'The answer states the refund amount and is polite.' }),
    passThreshold: z.number().min(0).max(1).default(0.5).meta({ description: 'The judge’s score (0–1) from which the run passes. Default: `0.5`.', example: 0.7 }),
    name,
  })
  .meta({ description: 'A model grades the output against `rubric` with a score from 0 to 1 (each judgement is an execution of its own).' });

export const scorerSchema = z
  .discriminatedUnion('type', [exactMatch, contains, regex, jsonSchema, toolTrajectory, maxToolCalls, llmJudge])
  .meta({ id: 'EvalScorer', description: 'How a run is scored: a discriminated union on `type`.' });

export const scorersSchema = z
  .array(scorerSchema)
  .min(1)
  .max(MAX_SCORERS)
  .meta({ description: `The scorers each run is scored by (1–${MAX_SCORERS}).`, example: [{ type: 'contains', value: 'refund', ignoreCase: true }, { type: 'max_tool_calls', max: 5 }] });

/** A scorer as the API is sent it. */
export type ScorerInput = z.input<typeof scorerSchema>;
/** A scorer as zod parsed it: defaults filled in, `name` maybe absent. */
export type ParsedScorer = z.output<typeof scorerSchema>;
/** A scorer ready to score with: parsed, and named. */
export type Scorer = ParsedScorer & { name: string };

const invalid = (param: string, message: string) => new ApiError('invalid_parameter', message, { param });

/** The scorers with every `name` filled in (its `type` by default); refuses names that clash ignoring case, and reserved ones. */
export function namedScorers(list: readonly ParsedScorer[]): Scorer[] {
  const seen = new Map<string, number>();
  return list.map((scorer, i) => {
    const named = scorer.name ?? scorer.type;
    if (RESERVED_NAMES.has(named)) throw invalid('scorers', `'scorers.${i}.name' cannot be '${named}'`);
    const other = seen.get(named.toLowerCase());
    if (other !== undefined) {
      throw invalid('scorers', `scorers ${other} and ${i} are both named '${named}' (ignoring case): give one of them a \`name\``);
    }
    seen.set(named.toLowerCase(), i);
    return { ...scorer, name: named };
  });
}

/** True when `value` has a key named `__proto__` at any depth (walked without recursion, at most 100,000 values). */
function hasProtoKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0 && seen++ < 100_000) {
    const next = stack.pop();
    if (next === null || typeof next !== 'object') continue;
    for (const key of Object.keys(next)) {
      if (key === '__proto__') return true;
      stack.push((next as Record<string, unknown>)[key]);
    }
  }
  return false;
}

const protoRefusal = (param: string) => invalid(param, `'${param}' cannot have a key named '__proto__'`);

/**
 * zod drops a top-level `__proto__` key of a record without a word, so the raw `scorers` (before
 * zod parses them) are walked for one in an expected call's `arguments` or a json_schema's
 * `schema`: 400 naming the field. checkScorers() finds the deeper ones, which zod keeps.
 */
export function assertSafeScorerKeys(raw: unknown): void {
  if (!Array.isArray(raw)) return;
  raw.forEach((scorer: unknown, i) => {
    if (scorer === null || typeof scorer !== 'object') return;
    const { type, schema, expected } = scorer as Record<string, unknown>;
    if (type === 'json_schema' && hasProtoKey(schema)) throw protoRefusal(`scorers.${i}.schema`);
    if (type === 'tool_trajectory' && Array.isArray(expected)) {
      expected.forEach((call: unknown, j) => {
        if (call !== null && typeof call === 'object' && hasProtoKey((call as Record<string, unknown>).arguments)) throw protoRefusal(`scorers.${i}.expected.${j}.arguments`);
      });
    }
  });
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '');

/** A json_schema scorer's schema: at most 16 KB, and compiled in the schema pool's threads (never on the event loop). */
async function checkSchema(owner: string, schema: Record<string, unknown>, param: string): Promise<void> {
  const bytes = jsonBytes(schema);
  if (bytes > MAX_SCORER_JSON_BYTES) throw invalid(param, `'${param}' must be at most 16 KB as JSON (it is ${bytes} bytes)`);
  await assertCompiles(owner, schema, param);
}

/**
 * What zod cannot check of parsed scorers (`owner`: the workspace whose line of the schema pool
 * compiles them): regex patterns compile under RE2; a json_schema's schema is at most 16 KB and
 * compiles; an expected call's arguments are at most 16 KB and have no `__proto__` key (nor a
 * json_schema's schema: see assertSafeScorerKeys for the top-level ones). The first refusal by
 * position is thrown, an ApiError naming the field.
 */
export async function checkScorers(owner: string, list: readonly ParsedScorer[]): Promise<void> {
  list.forEach((scorer, i) => {
    if (scorer.type === 'regex') {
      const refusal = re2Refusal(scorer.pattern);
      const param = `scorers.${i}.pattern`;
      if (refusal) throw invalid(param, `'${param}' of the regex scorer '${scorer.name ?? 'regex'}' does not compile under RE2 (${refusal}); ${re2Hint}`);
    }
    if (scorer.type === 'json_schema' && hasProtoKey(scorer.schema)) throw protoRefusal(`scorers.${i}.schema`);
    if (scorer.type === 'tool_trajectory') {
      scorer.expected.forEach((call, j) => {
        if (call.arguments === undefined) return;
        const param = `scorers.${i}.expected.${j}.arguments`;
        if (hasProtoKey(call.arguments)) throw protoRefusal(param);
        const bytes = jsonBytes(call.arguments);
        if (bytes > MAX_SCORER_JSON_BYTES) throw invalid(param, `'${param}' must be at most 16 KB as JSON (it is ${bytes} bytes)`);
      });
    }
  });
  // Compiled together; the first refused schema (by position) is the one reported.
  const schemas = await Promise.allSettled(list.map((scorer, i) => (scorer.type === 'json_schema' ? checkSchema(owner, scorer.schema, `scorers.${i}.schema`) : null)));
  const refused = schemas.find((check) => check.status === 'rejected');
  if (refused) throw refused.reason;
}
