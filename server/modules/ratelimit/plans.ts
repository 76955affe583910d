import type { Plan } from '../../../db/schema';

// The plans' published limits (docs/api.md, "Rate limits"). Enterprise: a custom per-minute limit
// set by the operator, no daily cap.
export const PLAN_LIMITS: Record<Plan, { perMinute: number; perDay: number | null }> = {
  starter: { perMinute: 60, perDay: 10_000 },
  professional: { perMinute: 300, perDay: 100_000 },
  enterprise: { perMinute: 1_000, perDay: null },
};

export function limitsFor(plan: Plan, customRpm: number | null) {
  const base = PLAN_LIMITS[plan];
  return plan === 'enterprise' && customRpm ? { ...base, perMinute: customRpm } : base;
}

// Executions running at once per workspace and environment (docs/concurrency.md); the rest wait
// `queued`. Enterprise: 100 unless the operator sets another number (`admin set-plan --concurrency N`).
export const PLAN_CONCURRENCY: Record<Plan, number> = {
  starter: 5,
  professional: 25,
  enterprise: 100,
};

export function concurrencyFor(plan: Plan, customConcurrency: number | null): number {
  return plan === 'enterprise' && customConcurrency ? customConcurrency : PLAN_CONCURRENCY[plan];
}

/**
 * `limitsFor` as SQL over a workspace row `w` (`plan`, `custom_rpm`): the per-minute and per-day
 * limits of a key of that workspace (per-day null: no daily cap), for a statement that charges
 * the key where it looks it up (index.ts, `lookUpAndChargeKey`).
 */
export function limitsSql(w: string): { perMinute: string; perDay: string } {
  const plans = Object.entries(PLAN_LIMITS) as [Plan, (typeof PLAN_LIMITS)[Plan]][];
  const perMinute = plans.map(([plan, l]) => `when '${plan}' then ${plan === 'enterprise' ? `coalesce(nullif(${w}.custom_rpm, 0), ${l.perMinute})` : l.perMinute}`);
  const perDay = plans.map(([plan, l]) => `when '${plan}' then ${l.perDay ?? 'null'}::int`);
  return { perMinute: `(case ${w}.plan ${perMinute.join(' ')} end)`, perDay: `(case ${w}.plan ${perDay.join(' ')} end)` };
}
