import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { heavySchema } from '../../../test/fakes/schemas';
import { compileSchema, MAX_WAITING_PER_WORKSPACE, SCHEMA_THREADS, setSchemaBudgetForTests } from '../tools/schema-pool';
import { namedScorers, scorerSchema, type Scorer, type ScorerInput } from './scorer-schemas';
import { scoreRun, type Score, type ScoredRun } from './scorers';

// Deterministic scoring of a run: each scorer's score, pass and reason, the runs that are not
// scored (cancelled, worker lost), failed runs, and hostile patterns.

let unique = 0;
const fresh = () => `r${process.pid}-${++unique}`;

after(() => setSchemaBudgetForTests(null));

const scorer = (input: ScorerInput): Scorer => namedScorers([scorerSchema.parse(input)])[0]!;
const run = (fields: Partial<ScoredRun> = {}): ScoredRun => ({ status: 'succeeded', output: null, outputJson: null, error: null, toolCalls: [], ...fields });
const text = (output: string) => run({ output });
const failed = (code = 'model_error') => run({ status: 'failed', output: 'partial', error: { code, message: 'it broke' } });
const cancelled = () => run({ status: 'cancelled', output: 'partial' });
const lost = () => run({ status: 'failed', output: 'partial', error: { code: 'worker_lost', message: 'the worker went away' } });
const score = (s: ScorerInput, r: ScoredRun, expected?: unknown) => scoreRun(scorer(s), r, expected, 'ws_score');

/** Checks score and pass, and the reason against a pattern. */
function expect(actual: Score, value: number | null, pass: boolean | null, reason: RegExp) {
  assert.equal(actual.score, value, actual.reason);
  assert.equal(actual.pass, pass, actual.reason);
  assert.match(actual.reason, reason);
  assert.ok(actual.reason.length <= 300);
}

describe('exact_match', () => {
  const exact: ScorerInput = { type: 'exact_match' };

  it('compares a string expected to the output text, whitespace around both trimmed', async () => {
    expect(await score(exact, text('  Paris\n'), 'Paris '), 1, true, /equals the expected/);
    expect(await score(exact, text('paris'), 'Paris'), 0, false, /"paris" differs from the expected "Paris"/);
    expect(await score(exact, run(), 'Paris'), 0, false, /no output/);
  });

  it('compares an object or array expected as canonical JSON: the structured output, else the output parsed', async () => {
    expect(await score(exact, run({ outputJson: { b: 2, a: [1, { y: 1, x: 0 }] } }), { a: [1, { x: 0, y: 1 }], b: 2 }), 1, true, /expected JSON/);
    expect(await score(exact, text('{"b": 2, "a": 1}'), { a: 1, b: 2 }), 1, true, /expected JSON/);
    expect(await score(exact, text('[1, 2]'), [1, 2]), 1, true, /expected JSON/);
    expect(await score(exact, text('[2, 1]'), [1, 2]), 0, false, /the output \[2,1\] differs from the expected JSON/);
    expect(await score(exact, text('not json'), { a: 1 }), 0, false, /^the output is not JSON$/);
    // The structured output wins over the text.
    expect(await score(exact, run({ output: '{"a":2}', outputJson: { a: 1 } }), { a: 1 }), 1, true, /equals/);
  });

  it('an item without expected is not scored', async () => {
    expect(await score(exact, text('x'), undefined), null, null, /no expected output/);
    expect(await score(exact, text('x'), null), null, null, /no expected output/);
  });

  it('never quotes more than 100 characters of the output', async () => {
    const long = `${'x'.repeat(1000)}TAIL`;
    const { reason } = await score(exact, text(long), 'short');
    assert.ok(!reason.includes('x'.repeat(101)), reason);
    assert.ok(!reason.includes('TAIL'));
    const json = await score(exact, run({ outputJson: { long } }), { long: 'short' });
    assert.ok(!json.reason.includes('x'.repeat(101)) && !json.reason.includes('TAIL'), json.reason);
  });
});

describe('contains', () => {
  it('matches case-sensitively unless ignoreCase', async () => {
    expect(await score({ type: 'contains', value: 'Refund' }, text('Your refund is on its way')), 0, false, /does not contain "Refund"/);
    expect(await score({ type: 'contains', value: 'Refund', ignoreCase: true }, text('Your refund is on its way')), 1, true, /contains "Refund" \(ignoring case\)/);
    expect(await score({ type: 'contains', value: 'refund' }, text('Your refund is on its way')), 1, true, /contains "refund"/);
    expect(await score({ type: 'contains', value: 'refund' }, run()), 0, false, /no output/);
  });

  it('reads the structured output as JSON when there is no text', async () => {
    expect(await score({ type: 'contains', value: '"id":"7"' }, run({ outputJson: { id: '7' } })), 1, true, /contains/);
  });
});

describe('regex', () => {
  it('searches the pattern anywhere in the output', async () => {
    expect(await score({ type: 'regex', pattern: 'Order #\\d+' }, text('See Order #1042.')), 1, true, /matches "Order #\\\\d\+"/);
    expect(await score({ type: 'regex', pattern: '^Order' }, text('See Order #1042.')), 0, false, /does not match/);
    expect(await score({ type: 'regex', pattern: '(?i)^see' }, text('See Order #1042.')), 1, true, /matches/);
    expect(await score({ type: 'regex', pattern: 'x' }, run()), 0, false, /no output/);
  });

  it('a pattern catastrophic for a backtracking engine runs in linear time on RE2', async () => {
    const hostile = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    expect(await score({ type: 'regex', pattern: '(a+)+$' }, text(hostile)), 0, false, /does not match/);
    expect(await score({ type: 'regex', pattern: '^(a|aa)+$' }, text(hostile)), 0, false, /does not match/);
    // A backtracking engine would not finish these in a lifetime; RE2 takes milliseconds. The bound
    // only tells the two apart, with room for a loaded CI machine (200 ms once failed at 210 ms).
    assert.ok(performance.now() - started < 5_000, `${performance.now() - started} ms`);
  });

  it('a pattern RE2 refuses (stored before the check) is not scored, not thrown', async () => {
    const stored = { type: 'regex', pattern: '(a)\\1', name: 'old' } as Scorer;
    expect(await scoreRun(stored, text('aa'), undefined, 'ws_score'), null, null, /does not compile under RE2/);
  });
});

describe('json_schema', () => {
  const schema = { type: 'object', properties: { orderId: { type: 'string', pattern: '^[0-9]+$' } }, required: ['orderId'] };
  const jsonScorer: ScorerInput = { type: 'json_schema', schema };

  it('valid output scores 1; invalid 0 with ajv’s reason; output that is not JSON 0', async () => {
    expect(await score(jsonScorer, text('{"orderId": "1042"}')), 1, true, /valid against the schema/);
    expect(await score(jsonScorer, run({ outputJson: { orderId: '7' } })), 1, true, /valid/);
    expect(await score(jsonScorer, text('{"orderId": "abc"}')), 0, false, /not valid against the schema: \/orderId must match pattern/);
    expect(await score(jsonScorer, text('{}')), 0, false, /must have required property 'orderId'/);
    expect(await score(jsonScorer, text('Order 1042')), 0, false, /^the output is not JSON$/);
    expect(await score(jsonScorer, run()), 0, false, /no output/);
  });

  it('a validation past its budget, or a workspace with too many waiting, is not scored', async () => {
    setSchemaBudgetForTests(0);
    try {
      expect(await score({ type: 'json_schema', schema: heavySchema(fresh()) }, text('{}')), null, null, /took longer than 1 s: not scored/);
    } finally {
      setSchemaBudgetForTests(null);
    }
    const flood = Array.from({ length: SCHEMA_THREADS + MAX_WAITING_PER_WORKSPACE }, () => compileSchema('ws_score', { type: 'object', description: fresh() }));
    expect(await score(jsonScorer, text('{}')), null, null, /too many .* waiting: not scored/);
    await Promise.all(flood);
  });
});

describe('runs that failed or were not finished by the agent', () => {
  const outputScorers: ScorerInput[] = [{ type: 'exact_match' }, { type: 'contains', value: 'partial' }, { type: 'regex', pattern: 'p' }, { type: 'json_schema', schema: { type: 'string' } }];

  it('a failed run scores 0 under every output scorer, the reason naming the error code', async () => {
    for (const s of outputScorers) expect(await score(s, failed('timeout'), 'partial'), 0, false, /the run failed \(timeout\)/);
    expect(await score({ type: 'contains', value: 'x' }, run({ status: 'failed', output: null })), 0, false, /did not succeed \(failed\)/);
  });

  it('a cancelled run, or one whose worker was lost, is not scored by any scorer', async () => {
    const all: ScorerInput[] = [...outputScorers, { type: 'tool_trajectory', expected: [{ tool: 't' }] }, { type: 'max_tool_calls', max: 3 }];
    for (const s of all) {
      expect(await score(s, cancelled(), 'partial'), null, null, /cancelled: not scored/);
      expect(await score(s, lost(), 'partial'), null, null, /worker: not scored/);
    }
  });

  it('trajectory scorers score the calls of a failed run', async () => {
    const calls = [{ tool: 'lookup', arguments: {} }];
    expect(await score({ type: 'max_tool_calls', max: 1 }, { ...failed(), toolCalls: calls }), 1, true, /made 1 tool call,/);
    expect(await score({ type: 'tool_trajectory', expected: [{ tool: 'lookup' }] }, { ...failed(), toolCalls: calls }), 1, true, /matched/);
  });

  it('llm_judge is not scored here', async () => {
    await assert.rejects(score({ type: 'llm_judge', model: 'openai/gpt-4o-mini', rubric: 'Polite.' }, text('hi')), /llm_judge is scored by a judge execution/);
  });
});

describe('tool_trajectory', () => {
  const call = (tool: string, args: unknown = {}) => ({ tool, arguments: args });
  const calls = [call('lookup', { id: '1', fields: ['a', 'b'] }), call('search', { q: 'x' }), call('refund', { id: '1', amount: 5 })];
  const made = run({ toolCalls: calls });
  const trajectory = (mode: 'exact' | 'in_order' | 'any_order', expected: { tool: string; arguments?: Record<string, unknown> }[]) => score({ type: 'tool_trajectory', mode, expected }, made);

  it('exact: the same calls in the same order, nothing more', async () => {
    expect(await trajectory('exact', [{ tool: 'lookup' }, { tool: 'search' }, { tool: 'refund' }]), 1, true, /matched exactly; the run made 3 tool calls/);
    // Arguments compared as canonical JSON: key order does not matter, values do.
    expect(await trajectory('exact', [{ tool: 'lookup', arguments: { fields: ['a', 'b'], id: '1' } }, { tool: 'search' }, { tool: 'refund', arguments: { amount: 5, id: '1' } }]), 1, true, /matched exactly/);
    expect(await trajectory('exact', [{ tool: 'lookup' }, { tool: 'search' }, { tool: 'refund', arguments: { id: '1', amount: 6 } }]), 0, false, /expected call 3 \(refund with arguments .*\) was not found at position 3/);
    expect(await trajectory('exact', [{ tool: 'search' }, { tool: 'lookup' }, { tool: 'refund' }]), 0, false, /expected call 1 \(search\) was not found at position 1/);
    expect(await trajectory('exact', [{ tool: 'lookup' }, { tool: 'search' }]), 0, false, /made 3 tool calls, more than the 2 expected/);
    expect(await trajectory('exact', [{ tool: 'lookup' }, { tool: 'search' }, { tool: 'refund' }, { tool: 'notify' }]), 0, false, /expected call 4 \(notify\) was not found at position 4; the run made 3 tool calls/);
  });

  it('in_order: the expected calls in this order, others between allowed; partial credit', async () => {
    expect(await trajectory('in_order', [{ tool: 'lookup' }, { tool: 'refund' }]), 1, true, /matched \(in order\); the run made 3 tool calls/);
    expect(await trajectory('in_order', [{ tool: 'lookup', arguments: { id: '1', fields: ['a', 'b'] } }, { tool: 'refund', arguments: { id: '1', amount: 5 } }]), 1, true, /matched/);
    expect(await trajectory('in_order', [{ tool: 'refund' }, { tool: 'lookup' }]), 0.5, false, /expected call 2 \(lookup\) was not found in order.*\(1 of 2 expected calls found\)/);
    expect(await trajectory('in_order', [{ tool: 'lookup', arguments: { id: '2' } }, { tool: 'search' }, { tool: 'refund' }]), 2 / 3, false, /expected call 1 \(lookup with arguments \{"id":"2"\}\)/);
    // One missing call does not hide those after it: [notify, search, refund] finds 2 of 3.
    expect(await trajectory('in_order', [{ tool: 'notify' }, { tool: 'search' }, { tool: 'refund' }]), 2 / 3, false, /expected call 1 \(notify\)/);
    expect(await score({ type: 'tool_trajectory', expected: [{ tool: 'lookup' }] }, run()), 0, false, /the run made 0 tool calls/);
  });

  it('any_order: each expected call made by a distinct call, in any order', async () => {
    expect(await trajectory('any_order', [{ tool: 'refund' }, { tool: 'lookup' }]), 1, true, /matched \(in any order\)/);
    expect(await trajectory('any_order', [{ tool: 'refund' }, { tool: 'refund' }]), 0.5, false, /expected call 2 \(refund\) was not found/);
    expect(await trajectory('any_order', [{ tool: 'search', arguments: { q: 'y' } }, { tool: 'lookup', arguments: { id: '1', fields: ['a', 'b'] } }]), 0.5, false, /expected call 1 \(search/);
    // An expected call without arguments does not take the one call a more precise one needs.
    const twice = run({ toolCalls: [call('lookup', { id: '1' }), call('lookup', { id: '2' })] });
    const loose: ScorerInput = { type: 'tool_trajectory', mode: 'any_order', expected: [{ tool: 'lookup' }, { tool: 'lookup', arguments: { id: '1' } }] };
    expect(await score(loose, twice), 1, true, /matched/);
  });
});

describe('max_tool_calls', () => {
  const calls = (n: number) => run({ toolCalls: Array.from({ length: n }, () => ({ tool: 't', arguments: {} })) });

  it('passes at most max calls', async () => {
    expect(await score({ type: 'max_tool_calls', max: 3 }, calls(3)), 1, true, /made 3 tool calls, at most the 3 allowed/);
    expect(await score({ type: 'max_tool_calls', max: 0 }, calls(0)), 1, true, /made 0 tool calls/);
    expect(await score({ type: 'max_tool_calls', max: 3 }, calls(4)), 0, false, /^made 4 tool calls, more than the 3 allowed$/);
  });
});

describe('speed', () => {
  it('deterministic scorers cost microseconds a run', async () => {
    const scorers = [
      scorer({ type: 'contains', value: 'refund', ignoreCase: true }),
      scorer({ type: 'regex', pattern: 'Order #\\d+' }),
      scorer({ type: 'exact_match' }),
      scorer({ type: 'tool_trajectory', mode: 'any_order', expected: [{ tool: 'refund', arguments: { id: '1' } }, { tool: 'lookup' }] }),
      scorer({ type: 'max_tool_calls', max: 5 }),
    ];
    const r = run({ output: 'Your refund for Order #1042 is on its way.', toolCalls: [{ tool: 'lookup', arguments: { id: '1' } }, { tool: 'refund', arguments: { id: '1' } }] });
    const rounds = 2_000;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) for (const s of scorers) await scoreRun(s, r, 'Your refund is on its way.', 'ws_score');
    const perRun = ((performance.now() - started) * 1000) / (rounds * scorers.length);
    assert.ok(perRun < 100, `${perRun.toFixed(1)} µs a score`);
  });
});
