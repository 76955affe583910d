import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareMeans, itemChange, round4, summarize, tQuantile975 } from './stats';

// The statistics of eval results against values computed by hand (and checked with scipy's
// stats.t): Student-t quantiles, summaries, paired and Welch comparisons.

const close = (actual: number | null, expected: number, digits = 6) => {
  assert.ok(actual !== null && Math.abs(actual - expected) < 10 ** -digits, `${actual} is not ${expected} to ${digits} decimals`);
};
const closePair = (actual: [number, number] | null, expected: [number, number], digits = 6) => {
  assert.ok(actual, 'no interval');
  close(actual[0], expected[0], digits);
  close(actual[1], expected[1], digits);
};

describe('tQuantile975', () => {
  it('matches the known values to 3 decimals', () => {
    const known: [number, number][] = [
      [1, 12.706],
      [2, 4.303],
      [5, 2.571],
      [10, 2.228],
      [30, 2.042],
      [100, 1.984],
      [Infinity, 1.96],
    ];
    for (const [df, t] of known) assert.equal(Math.round(tQuantile975(df) * 1000) / 1000, t, `df ${df}`);
  });

  it('is accurate for Welch’s non-whole df and beyond the table (scipy’s stats.t.ppf)', () => {
    const exact: [number, number][] = [
      [1.01, 12.412738499],
      [1.5, 6.016663104],
      [1.6842105263157896, 5.176231629],
      [2.5, 3.574654842],
      [7.3, 2.345066737],
      [29.5, 2.043724967],
      [29.99, 2.042301013],
      [31, 2.039513446],
      [45.7, 2.013252240],
      [1000, 1.962339081],
    ];
    for (const [df, t] of exact) close(tQuantile975(df), t, 6);
  });

  it('decreases with df and refuses df below 1', () => {
    let previous = Infinity;
    for (let df = 1; df < 200; df += 0.25) {
      const t = tQuantile975(df);
      assert.ok(t < previous, `df ${df}`);
      previous = t;
    }
    assert.throws(() => tQuantile975(0.5), RangeError);
    assert.throws(() => tQuantile975(Number.NaN), RangeError);
  });
});

describe('summarize', () => {
  it('mean, sample standard deviation and the Student-t interval', () => {
    // mean 0.7; variance (0.04 + 0.01 + 0 + 0.01 + 0.04) / 4 = 0.025; half width 2.776445 × √0.025 / √5.
    const s = summarize([0.5, 0.6, 0.7, 0.8, 0.9], [false, false, true, true, true]);
    close(s.mean, 0.7);
    close(s.stddev, 0.158113883);
    closePair(s.ci95, [0.503675684, 0.896324316]);
    assert.equal(s.passRate, 0.6);
    assert.equal(s.n, 5);
  });

  it('clamps the interval to [0, 1]', () => {
    // mean 0.75, sd 0.5, half width 3.182446 × 0.5 / 2 = 0.7956.
    const s = summarize([1, 0, 1, 1], [true, false, true, true]);
    assert.equal(s.mean, 0.75);
    assert.equal(s.stddev, 0.5);
    assert.deepEqual(s.ci95, [0, 1]);
    assert.equal(s.passRate, 0.75);
  });

  it('counts only the non-null values; one score has no spread', () => {
    assert.deepEqual(summarize([null, 0.4, null], [null, true, null]), { mean: 0.4, stddev: 0, ci95: [0.4, 0.4], passRate: 1, n: 1 });
    const s = summarize([1, null, 0], [true, null, false]);
    assert.equal(s.mean, 0.5);
    assert.equal(s.n, 2);
    assert.equal(s.passRate, 0.5);
    assert.equal(summarize([0.3, 0.5], [null, null]).passRate, null);
  });

  it('all null (or nothing) when nothing was scored', () => {
    const none = { mean: null, stddev: null, ci95: null, passRate: null, n: 0 };
    assert.deepEqual(summarize([], []), none);
    assert.deepEqual(summarize([null, null], [null, null]), none);
  });

  it('equal scores: no spread, a point interval', () => {
    assert.deepEqual(summarize([1, 1, 1], [true, true, true]), { mean: 1, stddev: 0, ci95: [1, 1], passRate: 1, n: 3 });
  });
});

const scores = (entries: Record<string, number | null>) => new Map(Object.entries(entries));

describe('compareMeans', () => {
  it('paired t interval over the items scored in both', () => {
    // Differences over a, b, c: 0.5, 0, 0.2 (d only in the baseline, e null in the current run).
    // Mean 0.2333; sd 0.251661; half width 4.302653 × 0.251661 / √3 = 0.625161.
    const c = compareMeans(scores({ a: 1, b: 0.5, c: 0.8, e: null }), scores({ a: 0.5, b: 0.5, c: 0.6, d: 0.1, e: 0.9 }));
    assert.equal(c.paired, true);
    close(c.diff, 0.233333333);
    closePair(c.ci95, [-0.391827615, 0.858494281]);
    // The baseline's mean over all its scored items: (0.5 + 0.5 + 0.6 + 0.1 + 0.9) / 5.
    close(c.baselineMean, 0.52);
  });

  it('Welch’s interval when fewer than 2 items are scored in both', () => {
    // Current 0.9, 0.7 (mean 0.8, variance 0.02); baseline 0.2, 0.4, 0.3 (mean 0.3, variance 0.01).
    // Standard error √(0.02/2 + 0.01/3); Welch–Satterthwaite df 1.6842; t 5.176232.
    const c = compareMeans(scores({ a: 0.9, b: 0.7 }), scores({ c: 0.2, d: 0.4, e: 0.3 }));
    assert.equal(c.paired, false);
    close(c.diff, 0.5);
    close(c.baselineMean, 0.3);
    closePair(c.ci95, [-0.097699745, 1], 6);
    // One shared item is not enough to pair.
    const one = compareMeans(scores({ a: 0.9, b: 0.7 }), scores({ a: 0.2, d: 0.4, e: 0.3 }));
    assert.equal(one.paired, false);
    close(one.diff, 0.5);
  });

  it('clamps the interval to [−1, 1]', () => {
    const c = compareMeans(scores({ a: 1, b: 0 }), scores({ a: 0, b: 1 }));
    assert.equal(c.paired, true);
    assert.equal(c.diff, 0);
    assert.deepEqual(c.ci95, [-1, 1]);
  });

  it('no spread on either side: a point interval', () => {
    assert.deepEqual(compareMeans(scores({ a: 1 }), scores({ b: 0.25 })), { baselineMean: 0.25, diff: 0.75, ci95: [0.75, 0.75], paired: false });
    assert.deepEqual(compareMeans(scores({ a: 1, b: 1 }), scores({ a: 0.5, b: 0.5 })), { baselineMean: 0.5, diff: 0.5, ci95: [0.5, 0.5], paired: true });
    // One side of one score counts as no spread: df from the other side (2 − 1).
    const c = compareMeans(scores({ a: 0.5 }), scores({ b: 0.2, c: 0.4 }));
    close(c.diff, 0.2);
    const half = 12.706204736 * Math.sqrt(0.02 / 2);
    closePair(c.ci95, [0.2 - half, 0.2 + half].map((x) => Math.max(-1, Math.min(1, x))) as [number, number]);
  });

  it('null when either side has nothing scored', () => {
    assert.deepEqual(compareMeans(scores({ a: null }), scores({ a: 0.5 })), { baselineMean: 0.5, diff: null, ci95: null, paired: false });
    assert.deepEqual(compareMeans(scores({ a: 0.5 }), scores({})), { baselineMean: null, diff: null, ci95: null, paired: false });
  });
});

describe('itemChange', () => {
  it('improved, regressed or unchanged, within 1e-9', () => {
    assert.equal(itemChange(1, 0.5), 'improved');
    assert.equal(itemChange(0.5, 1), 'regressed');
    assert.equal(itemChange(0.3, 0.1 + 0.2), 'unchanged');
    assert.equal(itemChange(0.5, 0.5 + 1e-10), 'unchanged');
    assert.equal(itemChange(null, 0.5), null);
    assert.equal(itemChange(0.5, null), null);
  });
});

describe('round4', () => {
  it('rounds to 4 decimals; -0 becomes 0; null stays null', () => {
    assert.equal(round4(0.123456), 0.1235);
    assert.equal(round4(2 / 3), 0.6667);
    assert.equal(round4(1), 1);
    assert.ok(Object.is(round4(-0.00001), 0));
    assert.equal(round4(null), null);
  });
});
