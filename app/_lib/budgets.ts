import { formatCount } from './format';
import type { Budget, BudgetPeriod } from './types';
import { formatUsd } from './usage';

// What the Budgets page makes of a budget as the API gives it (docs/budgets.md): how much of its
// limit is spent, and where its period is heading at the rate so far.

export type BudgetUnit = 'usd' | 'tokens';

export const PERIOD_LABEL: Record<BudgetPeriod, string> = { day: 'Daily', week: 'Weekly', month: 'Monthly', total: 'Total' };

/** When each period starts, in words (in the budget's zone). */
export const PERIOD_RULE: Record<BudgetPeriod, string> = {
  day: 'from local midnight',
  week: 'from Monday, local midnight',
  month: 'from the 1st, local midnight',
  total: 'never resets',
};

/** The word a limit is written per: "$5.00/day". */
export const PERIOD_UNIT: Record<BudgetPeriod, string> = { day: 'day', week: 'week', month: 'month', total: 'total' };

export const unitOf = (b: Pick<Budget, 'limit'>): BudgetUnit => ('usd' in b.limit ? 'usd' : 'tokens');

/** The limit and what was spent this period, as numbers in the limit's unit. */
export function amountsOf(b: Pick<Budget, 'limit' | 'spent'>): { unit: BudgetUnit; limit: number; spent: number } {
  return 'usd' in b.limit ? { unit: 'usd', limit: Number(b.limit.usd), spent: Number(b.spent.usd) } : { unit: 'tokens', limit: b.limit.tokens, spent: b.spent.tokens };
}

/** An amount in a unit: "$3.14", "$0.0042", "12,345 tokens" (a forecast is rounded to whole tokens). */
export function formatAmount(value: number, unit: BudgetUnit): string {
  if (unit === 'usd') return formatUsd(value);
  const tokens = Math.round(value);
  return `${formatCount(tokens)} ${tokens === 1 ? 'token' : 'tokens'}`;
}

/** Spent as a percentage of the limit: the real one, above 100 once passed. */
export function percentUsed(b: Pick<Budget, 'limit' | 'spent'>): number {
  const { limit, spent } = amountsOf(b);
  return limit > 0 ? (spent / limit) * 100 : 0;
}

/**
 * A percentage for people: whole, rounded down (99.6 % is not yet 100 %, which means the limit
 * is reached), "<1%" for a little above nothing.
 */
export function formatPercentUsed(percent: number): string {
  if (percent <= 0) return '0%';
  if (percent < 1) return '<1%';
  return `${Math.floor(percent).toLocaleString('en-US')}%`;
}

/** The lowest alert threshold under 100 %, from which the bar turns amber (null without one). */
export const warningAt = (b: Pick<Budget, 'alertAt'>): number | null => b.alertAt.find((p) => p < 100) ?? null;

export interface Forecast {
  /** What the period will have spent at its end, in the limit's unit. */
  value: number;
  /** That as a percentage of the limit. */
  percent: number;
  /** Less than a tenth of the period has passed: the rate so far says little yet. */
  early: boolean;
}

/** Below this share of the period gone, a forecast is flagged as early. */
const EARLY_SHARE = 0.1;

/**
 * Where the period is heading at the rate so far: spent ÷ the time elapsed in the period × the
 * period's length, as of `now` (the moment `spent` was read). Null for `total`, which has no end.
 */
export function forecastOf(b: Pick<Budget, 'limit' | 'spent' | 'periodStart' | 'resetsAt'>, now: number): Forecast | null {
  if (b.resetsAt === null) return null;
  const start = Date.parse(b.periodStart);
  const length = Date.parse(b.resetsAt) - start;
  if (!(length > 0)) return null;
  // A moment outside the period (a clock a little off, a period that has just ended): its
  // bounds, and at least a second, so a spend at the very start is not divided by nothing.
  const elapsed = Math.min(Math.max(now - start, 1_000), length);
  const { limit, spent } = amountsOf(b);
  const value = (spent / elapsed) * length;
  return { value, percent: limit > 0 ? (value / limit) * 100 : 0, early: elapsed < length * EARLY_SHARE };
}

/** "80%, 100%", or null without thresholds. */
export const formatThresholds = (alertAt: readonly number[]): string | null => (alertAt.length ? alertAt.map((p) => `${p}%`).join(', ') : null);
