import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { heavySchema } from '../../../test/fakes/schemas';
import { ApiError } from '../../platform/errors';
import { compileSchema, MAX_WAITING_PER_WORKSPACE, SCHEMA_THREADS, setSchemaBudgetForTests } from '../tools/schema-pool';
import { assertSafeScorerKeys, checkScorers, namedScorers, scorerSchema, scorersSchema, type ParsedScorer, type ScorerInput } from './scorer-schemas';

// The scorers of an eval as the API takes them: zod's shapes and defaults, names, and the checks
// zod cannot make (RE2, JSON Schemas compiled in the schema pool, sizes, `__proto__` keys).

let unique = 0;
const fresh = () => `s${process.pid}-${++unique}`;

after(() => setSchemaBudgetForTests(null));

const parse = (input: ScorerInput | Record<string, unknown>) => scorerSchema.parse(input);
const refusal = (input: Record<string, unknown>) => {
  const parsed = scorerSchema.safeParse(input);
  assert.equal(parsed.success, false, `${JSON.stringify(input)} was accepted`);
  return parsed.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
};
const isApiError = (code: string, param: string | undefined, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code);
  assert.equal(err.param, param);
  if (message) assert.match(err.message, message);
  return true;
};

describe('scorerSchema', () => {
  it('parses every type, with its defaults', () => {
    assert.deepEqual(parse({ type: 'exact_match' }), { type: 'exact_match' });
    assert.deepEqual(parse({ type: 'contains', value: 'refund' }), { type: 'contains', value: 'refund', ignoreCase: false });
    assert.deepEqual(parse({ type: 'regex', pattern: '^Order #\\d+', name: 'order.ref' }), { type: 'regex', pattern: '^Order #\\d+', name: 'order.ref' });
    assert.deepEqual(parse({ type: 'json_schema', schema: { type: 'object' } }), { type: 'json_schema', schema: { type: 'object' } });
    assert.deepEqual(parse({ type: 'tool_trajectory', expected: [{ tool: 'lookup', arguments: { id: '1' } }] }), {
      type: 'tool_trajectory',
      expected: [{ tool: 'lookup', arguments: { id: '1' } }],
      mode: 'in_order',
    });
    assert.deepEqual(parse({ type: 'max_tool_calls', max: 0 }), { type: 'max_tool_calls', max: 0 });
    assert.deepEqual(parse({ type: 'llm_judge', model: 'openai/gpt-4o-mini', rubric: 'Polite.' }), { type: 'llm_judge', model: 'openai/gpt-4o-mini', rubric: 'Polite.', passThreshold: 0.5 });
  });

  it('refuses what is out of bounds', () => {
    refusal({ type: 'nope' });
    refusal({ type: 'exact_match', extra: 1 });
    refusal({ type: 'contains', value: '' });
    refusal({ type: 'contains', value: 'x'.repeat(10_001) });
    refusal({ type: 'regex', pattern: '' });
    refusal({ type: 'regex', pattern: 'a'.repeat(1001) });
    refusal({ type: 'json_schema', schema: [] });
    refusal({ type: 'tool_trajectory', expected: [] });
    refusal({ type: 'tool_trajectory', expected: Array.from({ length: 51 }, () => ({ tool: 't' })) });
    refusal({ type: 'tool_trajectory', expected: [{ tool: 't' }], mode: 'sometimes' });
    refusal({ type: 'tool_trajectory', expected: [{ tool: 't', arguments: 'x' }] });
    refusal({ type: 'max_tool_calls', max: -1 });
    refusal({ type: 'max_tool_calls', max: 1001 });
    refusal({ type: 'max_tool_calls', max: 1.5 });
    refusal({ type: 'llm_judge', model: 'gpt-4o', rubric: 'x' });
    refusal({ type: 'llm_judge', model: 'nobody/gpt-4o', rubric: 'x' });
    refusal({ type: 'llm_judge', model: 'openai/gpt 4o', rubric: 'x' });
    refusal({ type: 'llm_judge', model: 'openai/gpt-4o', rubric: 'x'.repeat(4001) });
    refusal({ type: 'llm_judge', model: 'openai/gpt-4o', rubric: 'x', passThreshold: 1.5 });
  });

  it('names are 1–64 letters, digits, _, - or .', () => {
    assert.equal(parse({ type: 'exact_match', name: 'a'.repeat(64) }).name, 'a'.repeat(64));
    assert.equal(parse({ type: 'exact_match', name: 'v1.2_x-y' }).name, 'v1.2_x-y');
    for (const name of ['', 'a'.repeat(65), 'with space', 'é', 'a/b']) refusal({ type: 'exact_match', name });
  });

  it('refuses at parse time a pattern RE2 cannot compile, naming the scorer', () => {
    for (const pattern of ['(a)\\1', '(?=x)', '(?<!a)b', '[']) {
      const message = refusal({ type: 'regex', pattern, name: 'mine' });
      assert.match(message, /^pattern: the regex scorer 'mine' has a pattern RE2 cannot compile .*no lookahead/);
    }
    assert.match(refusal({ type: 'regex', pattern: '(a)\\1' }), /the regex scorer 'regex'/);
    // Catastrophic on a backtracking engine, linear on RE2: accepted.
    assert.equal(parse({ type: 'regex', pattern: '(a+)+$' }).type, 'regex');
  });

  it('scorersSchema takes 1 to 10 scorers', () => {
    assert.equal(scorersSchema.safeParse([]).success, false);
    assert.equal(scorersSchema.safeParse(Array.from({ length: 11 }, (_, i) => ({ type: 'exact_match', name: `s${i}` }))).success, false);
    assert.equal(scorersSchema.safeParse(Array.from({ length: 10 }, (_, i) => ({ type: 'exact_match', name: `s${i}` }))).success, true);
  });
});

describe('namedScorers', () => {
  it('fills in each name with its type', () => {
    const named = namedScorers(scorersSchema.parse([{ type: 'contains', value: 'a' }, { type: 'regex', pattern: 'b', name: 'Mine' }]));
    assert.deepEqual(
      named.map((s) => s.name),
      ['contains', 'Mine'],
    );
    assert.deepEqual(named[0], { type: 'contains', value: 'a', ignoreCase: false, name: 'contains' });
  });

  it('refuses names that clash ignoring case: two scorers of a type without a name, or two equal names', () => {
    assert.throws(() => namedScorers(scorersSchema.parse([{ type: 'contains', value: 'a' }, { type: 'contains', value: 'b' }])), isApiError('invalid_parameter', 'scorers', /both named 'contains'.*give one of them a `name`/));
    assert.throws(() => namedScorers(scorersSchema.parse([{ type: 'contains', value: 'a', name: 'Check' }, { type: 'regex', pattern: 'b', name: 'check' }])), isApiError('invalid_parameter', 'scorers', /scorers 0 and 1/));
    assert.throws(() => namedScorers(scorersSchema.parse([{ type: 'exact_match' }, { type: 'contains', value: 'a', name: 'EXACT_MATCH' }])), isApiError('invalid_parameter', 'scorers'));
    assert.equal(namedScorers(scorersSchema.parse([{ type: 'contains', value: 'a' }, { type: 'contains', value: 'b', name: 'contains2' }])).length, 2);
  });

  it('refuses __proto__, constructor and prototype as names', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      assert.throws(() => namedScorers(scorersSchema.parse([{ type: 'exact_match', name }])), isApiError('invalid_parameter', 'scorers', new RegExp(`cannot be '${name}'`)));
    }
  });
});

describe('checkScorers', () => {
  const parsed = (list: unknown[]) => scorersSchema.parse(list);

  it('passes scorers that are fine, a valid JSON Schema compiled in the pool', async () => {
    await checkScorers(
      'ws_ok',
      parsed([
        { type: 'regex', pattern: '(a+)+$' },
        { type: 'json_schema', schema: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]+$' } }, description: fresh() } },
        { type: 'tool_trajectory', expected: [{ tool: 't', arguments: { a: { b: [1, 2] } } }, { tool: 'u' }] },
      ]),
    );
  });

  it('refuses a pattern RE2 cannot compile (scorers that skipped zod)', async () => {
    const list = [{ type: 'exact_match' }, { type: 'regex', pattern: '(a)\\1', name: 'backref' }] as ParsedScorer[];
    await assert.rejects(checkScorers('ws_a', list), isApiError('invalid_parameter', 'scorers.1.pattern', /regex scorer 'backref' does not compile under RE2/));
  });

  it('refuses a JSON Schema that does not compile, with ajv’s reason, and one over 16 KB', async () => {
    await assert.rejects(checkScorers('ws_a', parsed([{ type: 'json_schema', schema: { type: 'nonsense' } }])), isApiError('invalid_parameter', 'scorers.0.schema', /is not a valid JSON Schema: .*schema is invalid/));
    await assert.rejects(
      checkScorers('ws_a', parsed([{ type: 'exact_match' }, { type: 'json_schema', schema: { type: 'string', pattern: '(?=a)' } }])),
      isApiError('invalid_parameter', 'scorers.1.schema', /not supported/),
    );
    const big = { type: 'object', description: 'x'.repeat(17 * 1024) };
    await assert.rejects(checkScorers('ws_a', parsed([{ type: 'json_schema', schema: big }])), isApiError('invalid_parameter', 'scorers.0.schema', /at most 16 KB/));
  });

  it('a schema past the compile budget is refused; a workspace with too many waiting is told to retry in a second', async () => {
    setSchemaBudgetForTests(0);
    try {
      await assert.rejects(checkScorers('ws_slow', parsed([{ type: 'json_schema', schema: heavySchema(fresh()) }])), isApiError('invalid_parameter', 'scorers.0.schema', /took longer than 1 s/));
    } finally {
      setSchemaBudgetForTests(null);
    }
    const flood = Array.from({ length: SCHEMA_THREADS + MAX_WAITING_PER_WORKSPACE }, () => compileSchema('ws_busy', { type: 'object', description: fresh() }));
    await assert.rejects(checkScorers('ws_busy', parsed([{ type: 'json_schema', schema: { type: 'object' } }])), (err: unknown) => {
      isApiError('rate_limit_exceeded', undefined)(err);
      assert.deepEqual((err as ApiError).headers, { 'Retry-After': '1' });
      return true;
    });
    await Promise.all(flood);
  });

  it('refuses expected arguments over 16 KB', async () => {
    const list = parsed([{ type: 'tool_trajectory', expected: [{ tool: 't' }, { tool: 't', arguments: { big: 'x'.repeat(16 * 1024) } }] }]);
    await assert.rejects(checkScorers('ws_a', list), isApiError('invalid_parameter', 'scorers.0.expected.1.arguments', /at most 16 KB/));
  });

  it('refuses a __proto__ key in expected arguments or a schema: nested ones after zod, top-level ones on the raw input', async () => {
    const raw = JSON.parse('[{"type":"tool_trajectory","expected":[{"tool":"t","arguments":{"a":{"__proto__":{"x":1}}}}]}]');
    await assert.rejects(checkScorers('ws_a', parsed(raw)), isApiError('invalid_parameter', 'scorers.0.expected.0.arguments', /cannot have a key named '__proto__'/));
    const deep = JSON.parse('[{"type":"json_schema","schema":{"properties":{"__proto__":{"type":"string"}}}}]');
    await assert.rejects(checkScorers('ws_a', parsed(deep)), isApiError('invalid_parameter', 'scorers.0.schema', /__proto__/));

    // zod drops a top-level __proto__ key without a word: only the raw input shows it.
    const top = JSON.parse('[{"type":"exact_match"},{"type":"tool_trajectory","expected":[{"tool":"t"},{"tool":"t","arguments":{"__proto__":{"x":1}}}]}]');
    assert.deepEqual((parsed(top)[1] as { expected: unknown[] }).expected[1], { tool: 't', arguments: {} });
    assert.throws(() => assertSafeScorerKeys(top), isApiError('invalid_parameter', 'scorers.1.expected.1.arguments', /__proto__/));
    assert.throws(() => assertSafeScorerKeys(JSON.parse('[{"type":"json_schema","schema":{"__proto__":{}}}]')), isApiError('invalid_parameter', 'scorers.0.schema'));
    assertSafeScorerKeys(JSON.parse('[{"type":"tool_trajectory","expected":[{"tool":"t","arguments":{"proto":1}}]}]'));
    assertSafeScorerKeys('not a list');
  });
});
