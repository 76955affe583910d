// The statistics of eval results: the mean score of a run of a dataset with its 95 % confidence
// interval (Student's t), the pass rate, and how a run compares with a baseline (a paired t
// interval over the items both scored, else Welch's). Pure functions over numbers in [0, 1];
// nothing is rounded here (the API rounds to 4 decimals with round4).

export interface Summary {
  mean: number | null;
  /** Sample standard deviation (n − 1); 0 for one score. */
  stddev: number | null;
  /** Student-t 95 % interval of the mean, within [0, 1]. */
  ci95: [number, number] | null;
  passRate: number | null;
  /** Scores counted (the non-null ones). */
  n: number;
}

export interface Comparison {
  /** The baseline's mean over all its scored items. */
  baselineMean: number | null;
  /** Current minus baseline: the mean of per-item differences when paired, else the difference of means. */
  diff: number | null;
  /** 95 % interval of `diff`, within [−1, 1]. */
  ci95: [number, number] | null;
  /** True when the interval is a paired one (at least 2 items scored in both). */
  paired: boolean;
}

/** The 0.975 quantile of Student's t for df 1 to 30. */
const T975 = [
  12.706204736, 4.30265273, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852, 2.20098516, 2.17881283, 2.160368656,
  2.144786688, 2.131449546, 2.119905299, 2.109815578, 2.10092204, 2.093024054, 2.085963447, 2.079613845, 2.073873068, 2.06865761, 2.063898562, 2.059538553, 2.055529439,
  2.051830516, 2.048407142, 2.045229642, 2.042272456,
];
/** The 0.975 quantile of the standard normal distribution. */
const Z975 = 1.959963984540054;

/** ln Γ(x) for x > 0 (Lanczos, as in Numerical Recipes: relative error below 2e-10). */
function lnGamma(x: number): number {
  const c = [76.18009172947146, -86.50532032941677, 24.01409824083091, -1.231739572450155, 0.1208650973866179e-2, -0.5395239384953e-5];
  let y = x;
  const tmp = x + 5.5 - (x + 0.5) * Math.log(x + 5.5);
  let ser = 1.000000000190015;
  for (const cj of c) ser += cj / ++y;
  return -tmp + Math.log((2.5066282746310005 * ser) / x);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let m = 1; m <= 300; m++) {
    for (const step of [(m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)), (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))]) {
      d = 1 + step * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + step / c;
      if (Math.abs(c) < tiny) c = tiny;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T > t) for Student's t with `df` degrees of freedom, t ≥ 0. */
const upperTail = (t: number, df: number) => 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom (≥ 1, not necessarily whole:
 * Welch's). Whole df up to 30: the table. Beyond 30: the Cornish–Fisher expansion to 1/df⁴
 * (within 1e-6 of the exact value). Other df below 30: the distribution function inverted by
 * bisection (the quantile lies between the normal's 1.96 and df 1's 12.71).
 */
export function tQuantile975(df: number): number {
  if (!(df >= 1)) throw new RangeError(`degrees of freedom must be at least 1 (got ${df})`);
  if (df <= 30 && Number.isInteger(df)) return T975[df - 1]!;
  if (df < 30) {
    let [lo, hi] = [Z975, T975[0]! + 1e-6];
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (upperTail(mid, df) > 0.025) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  }
  if (!Number.isFinite(df)) return Z975;
  const z = Z975;
  const [z3, z5, z7, z9] = [z ** 3, z ** 5, z ** 7, z ** 9];
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

function mean(xs: readonly number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Sample variance (n − 1), 0 for one value. */
function variance(xs: readonly number[], m = mean(xs)): number {
  if (xs.length < 2) return 0;
  let sum = 0;
  for (const x of xs) sum += (x - m) ** 2;
  return sum / (xs.length - 1);
}

/** The 95 % t interval of a mean (one value: the value itself). */
function tInterval(m: number, v: number, n: number): [number, number] {
  if (n < 2) return [m, m];
  const half = tQuantile975(n - 1) * Math.sqrt(v / n);
  return [m - half, m + half];
}

/** Mean, spread, 95 % interval and pass rate of a run's scores, over the non-null ones. */
export function summarize(scores: readonly (number | null)[], passes: readonly (boolean | null)[]): Summary {
  const xs = scores.filter((s): s is number => s !== null);
  const n = xs.length;
  if (n === 0) return { mean: null, stddev: null, ci95: null, passRate: null, n: 0 };
  const m = mean(xs);
  const v = variance(xs, m);
  const [lo, hi] = tInterval(m, v, n);
  const decided = passes.filter((p): p is boolean => p !== null);
  const passRate = decided.length === 0 ? null : decided.filter(Boolean).length / decided.length;
  return { mean: m, stddev: Math.sqrt(v), ci95: [clamp(lo, 0, 1), clamp(hi, 0, 1)], passRate, n };
}

const scored = (scores: Map<string, number | null>) => [...scores.values()].filter((s): s is number => s !== null);

/**
 * How the current run's per-item mean scores compare with a baseline's (maps keyed by dataset
 * item id). At least 2 items scored in both: a paired t interval on their differences. Otherwise
 * Welch's interval on the two samples as independent (a side of one score counts as no spread).
 */
export function compareMeans(current: Map<string, number | null>, baseline: Map<string, number | null>): Comparison {
  const cur = scored(current);
  const base = scored(baseline);
  if (cur.length === 0 || base.length === 0) return { baselineMean: base.length === 0 ? null : mean(base), diff: null, ci95: null, paired: false };
  const baselineMean = mean(base);

  const diffs: number[] = [];
  for (const [item, score] of current) {
    const other = baseline.get(item);
    if (score !== null && other !== null && other !== undefined) diffs.push(score - other);
  }
  if (diffs.length >= 2) {
    const d = mean(diffs);
    const [lo, hi] = tInterval(d, variance(diffs, d), diffs.length);
    return { baselineMean, diff: d, ci95: [clamp(lo, -1, 1), clamp(hi, -1, 1)], paired: true };
  }

  // Welch: standard error from each side's variance, df by Welch–Satterthwaite.
  const diff = mean(cur) - baselineMean;
  const a = variance(cur) / cur.length;
  const b = variance(base) / base.length;
  const denominator = (cur.length > 1 ? a ** 2 / (cur.length - 1) : 0) + (base.length > 1 ? b ** 2 / (base.length - 1) : 0);
  if (a + b === 0 || denominator === 0) return { baselineMean, diff, ci95: [diff, diff], paired: false };
  const df = Math.max(1, (a + b) ** 2 / denominator);
  const half = tQuantile975(df) * Math.sqrt(a + b);
  return { baselineMean, diff, ci95: [clamp(diff - half, -1, 1), clamp(diff + half, -1, 1)], paired: false };
}

/** How one item's score moved from the baseline (null when either is not scored). */
export function itemChange(current: number | null, baseline: number | null): 'improved' | 'regressed' | 'unchanged' | null {
  if (current === null || baseline === null) return null;
  const delta = current - baseline;
  if (delta > 1e-9) return 'improved';
  if (delta < -1e-9) return 'regressed';
  return 'unchanged';
}

/** Rounded to 4 decimals (for responses), -0 as 0; null stays null. */
export function round4(x: number): number;
export function round4(x: number | null): number | null;
export function round4(x: number | null): number | null {
  if (x === null) return null;
  const r = Math.round(x * 10_000) / 10_000;
  return r === 0 ? 0 : r;
}
