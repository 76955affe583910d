import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clashingNames, describeScorer, draftOf, newScorerDraft, toScorer } from './scorers';

describe('scorer drafts', () => {
  it('become the scorers the API takes', () => {
    assert.deepEqual(toScorer(newScorerDraft('exact_match')), { ok: true, scorer: { type: 'exact_match' } });
    assert.deepEqual(toScorer({ ...newScorerDraft('contains'), value: 'Echo', ignoreCase: true, name: 'says_echo' }), {
      ok: true,
      scorer: { type: 'contains', value: 'Echo', ignoreCase: true, name: 'says_echo' },
    });
    assert.deepEqual(toScorer({ ...newScorerDraft('max_tool_calls'), max: '3' }), { ok: true, scorer: { type: 'max_tool_calls', max: 3 } });
    assert.deepEqual(toScorer({ ...newScorerDraft('llm_judge'), rubric: 'Polite', passThreshold: '0.7', model: 'sandbox/echo' }), {
      ok: true,
      scorer: { type: 'llm_judge', model: 'sandbox/echo', rubric: 'Polite', passThreshold: 0.7 },
    });
    assert.deepEqual(toScorer({ ...newScorerDraft('tool_trajectory'), expected: '[{"tool": "lookup", "arguments": {"id": "1"}}]', mode: 'exact' }), {
      ok: true,
      scorer: { type: 'tool_trajectory', expected: [{ tool: 'lookup', arguments: { id: '1' } }], mode: 'exact' },
    });
  });

  it('say which field will not do', () => {
    const fail = (d: Parameters<typeof toScorer>[0]) => {
      const r = toScorer(d);
      return r.ok ? null : r.field;
    };
    assert.equal(fail({ ...newScorerDraft('contains') }), 'value');
    assert.equal(fail({ ...newScorerDraft('exact_match'), name: 'has space' }), 'name');
    assert.equal(fail({ ...newScorerDraft('json_schema'), schema: '{' }), 'schema');
    assert.equal(fail({ ...newScorerDraft('json_schema'), schema: '[]' }), 'schema');
    assert.equal(fail({ ...newScorerDraft('tool_trajectory'), expected: '[]' }), 'expected');
    assert.equal(fail({ ...newScorerDraft('tool_trajectory'), expected: '[{"name": "x"}]' }), 'expected');
    assert.equal(fail({ ...newScorerDraft('max_tool_calls'), max: '1.5' }), 'max');
    assert.equal(fail({ ...newScorerDraft('llm_judge'), rubric: 'x', model: 'gpt' }), 'model');
    assert.equal(fail({ ...newScorerDraft('llm_judge'), rubric: '', model: 'openai/gpt-4o' }), 'rubric');
    assert.equal(fail({ ...newScorerDraft('llm_judge'), rubric: 'x', passThreshold: '2' }), 'passThreshold');
  });

  it('clash by name ignoring case, and come back from a stored scorer', () => {
    const a = newScorerDraft('exact_match');
    const b = { ...newScorerDraft('contains'), name: 'EXACT_MATCH' };
    const c = newScorerDraft('regex');
    assert.deepEqual([...clashingNames([a, b, c])].sort(), [a.key, b.key].sort());
    const back = draftOf({ type: 'contains', name: 'contains', value: 'Echo', ignoreCase: true });
    assert.equal(back.name, '');
    assert.equal(back.value, 'Echo');
    assert.equal(back.ignoreCase, true);
    assert.deepEqual(toScorer(draftOf({ type: 'max_tool_calls', name: 'few_calls', max: 2 })), { ok: true, scorer: { type: 'max_tool_calls', max: 2, name: 'few_calls' } });
    assert.equal(describeScorer({ type: 'contains', value: 'refund', ignoreCase: true }), 'contains “refund” (any case)');
  });
});
