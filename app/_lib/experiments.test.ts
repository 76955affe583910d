import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffVerdict, formatDiff, formatInterval, formatScore, formatShare, joinResults, mainScore, progressOf, regressionsFirst, sharedScorers, worstFirst } from './experiments';
import type { ExperimentResult } from './types';

const result = (itemId: string, scores: Record<string, number | null>, change: ExperimentResult['change'] = null): ExperimentResult => ({
  itemId,
  input: `input ${itemId}`,
  expected: null,
  executionIds: [],
  outputs: [],
  scores: Object.fromEntries(Object.entries(scores).map(([n, mean]) => [n, { mean, pass: mean === null ? null : mean >= 0.5, reason: '' }])),
  change,
});

describe('experiment numbers', () => {
  it('are written one way', () => {
    assert.equal(formatScore(0.6666), '0.67');
    assert.equal(formatScore(null), '—');
    assert.equal(formatShare(2 / 3), '67%');
    assert.equal(formatShare(0.004), '<1%');
    assert.equal(formatShare(0.996), '>99%');
    assert.equal(formatShare(1), '100%');
    assert.equal(formatDiff(0.333), '+0.33');
    assert.equal(formatDiff(-0.1), '−0.10');
    assert.equal(formatDiff(0.001), '0.00');
    assert.equal(formatInterval([0.1, 0.9]), '0.10 – 0.90');
    assert.equal(formatInterval([-0.2, 0.5], true), '−0.20 – +0.50');
    assert.equal(formatInterval(null), '—');
  });

  it('say whether a difference is real by its interval', () => {
    assert.equal(diffVerdict([0.1, 0.3]), 'better');
    assert.equal(diffVerdict([-0.3, -0.1]), 'worse');
    assert.equal(diffVerdict([-0.1, 0.3]), 'unclear');
    assert.equal(diffVerdict(null), 'unclear');
  });

  it('show progress and the main score', () => {
    assert.deepEqual(progressOf({ done: 12, total: 40 }), { text: '12 / 40', share: 0.3 });
    assert.deepEqual(progressOf({ done: 0, total: 0 }), { text: '0 / 0', share: 0 });
    assert.deepEqual(mainScore({ scorers: [{ type: 'contains', name: 'has_refund' }], summary: { has_refund: { mean: 0.5, stddev: 0, ci95: null, passRate: 0.5, scored: 2 } } }), { name: 'has_refund', mean: 0.5 });
    assert.equal(mainScore({ scorers: [{ type: 'exact_match', name: 'exact_match' }], summary: null }), null);
  });
});

describe('results', () => {
  it('put regressions first, then unchanged, improved and the rest, in order within each', () => {
    const rows = [result('1', {}, 'improved'), result('2', {}, null), result('3', {}, 'regressed'), result('4', {}, 'unchanged'), result('5', {}, 'regressed')];
    assert.deepEqual(regressionsFirst(rows).map((r) => r.itemId), ['3', '5', '4', '1', '2']);
  });

  it('of two experiments join by item, b against a over the scorers they share', () => {
    const shared = sharedScorers(['exact', 'contains', 'judge'], ['contains', 'exact']);
    assert.deepEqual(shared, ['exact', 'contains']);
    const a = [result('1', { exact: 1, contains: 1, judge: 0.2 }), result('2', { exact: 0, contains: 1 }), result('3', { exact: 1, contains: 1 }), result('4', { exact: 1, contains: 1 })];
    const b = [result('1', { exact: 0, contains: 1 }), result('2', { exact: 1, contains: 1 }), result('3', { exact: 1, contains: 1 }), result('4', { exact: 0, contains: 0 }), result('5', { exact: 1, contains: 1 })];
    const joined = joinResults(a, b, shared);
    assert.deepEqual(joined.map((j) => [j.itemId, j.change]), [['1', 'regressed'], ['2', 'improved'], ['3', 'unchanged'], ['4', 'regressed'], ['5', null]]);
    assert.deepEqual(joined[0]!.diffs, { exact: -1, contains: 0 });
    assert.equal(joined[4]!.a, null);
    // The worst regression first (item 4 lost both), then the rest in their order.
    assert.deepEqual(worstFirst(joined).map((j) => j.itemId), ['4', '1', '2', '3', '5']);
  });
});
