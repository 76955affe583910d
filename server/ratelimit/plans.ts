import type { Plan } from '../../db/schema';

// reference.md 8.1. Enterprise: a custom per-minute limit set by the operator, no daily cap.
export const PLAN_LIMITS: Record<Plan, { perMinute: number; perDay: number | null }> = {
  starter: { perMinute: 60, perDay: 10_000 },
  professional: { perMinute: 300, perDay: 100_000 },
  enterprise: { perMinute: 1_000, perDay: null },
};

export function limitsFor(plan: Plan, customRpm: number | null) {
  const base = PLAN_LIMITS[plan];
  return plan === 'enterprise' && customRpm ? { ...base, perMinute: customRpm } : base;
}
