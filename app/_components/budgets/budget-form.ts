import { z } from 'zod';
import { browserZone } from '@/app/_lib/dates';
import type { Budget, BudgetPeriod, BudgetTargetType } from '@/app/_lib/types';
import { createBudgetInput, MAX_LIMIT_TOKENS, MAX_LIMIT_USD, updateBudgetInput } from '@/server/modules/budgets/schemas';

// The budget dialog's values, as typed, and the server's own createBudgetInput (or, editing,
// updateBudgetInput) behind them: the target and the limit in the API's shapes, the thresholds
// from "80, 100". What only the server knows (the zone, the agent or key still being there)
// comes back as an API error on its field.

export interface BudgetForm {
  name: string;
  targetType: BudgetTargetType;
  /** The agent or key (unused for the workspace). */
  targetId: string;
  unit: 'usd' | 'tokens';
  /** The limit as typed: "25", "25.50", "1,000,000". */
  amount: string;
  period: BudgetPeriod;
  timezone: string;
  action: 'block' | 'notify';
  /** Percentages as typed: "80, 100". */
  alertAt: string;
}

/** The viewer's zone, a new budget's default (the dashboard's one date helper). */
export { browserZone };

export function newBudgetForm(): BudgetForm {
  return { name: '', targetType: 'workspace', targetId: '', unit: 'usd', amount: '', period: 'month', timezone: browserZone(), action: 'block', alertAt: '80, 100' };
}

export function budgetFormOf(b: Budget): BudgetForm {
  return {
    name: b.name,
    targetType: b.target.type,
    targetId: b.target.type === 'workspace' ? '' : b.target.id,
    unit: 'usd' in b.limit ? 'usd' : 'tokens',
    amount: 'usd' in b.limit ? b.limit.usd : String(b.limit.tokens),
    period: b.period,
    timezone: b.timezone,
    action: b.action,
    alertAt: b.alertAt.join(', '),
  };
}

/** "$1,250.5" → "1250.5"; "1 000 000" → "1000000". */
const bare = (amount: string) => amount.trim().replace(/^\$/, '').replace(/[,_\s]/g, '');
const USD = /^\d{1,7}(\.\d{1,2})?$/;

/** The thresholds typed, or the message saying what is wrong with them. */
function parseThresholds(text: string): number[] | string {
  const parts = text.split(/[\s,;]+/).filter(Boolean).map((p) => p.replace(/%$/, ''));
  if (parts.some((p) => !/^\d+$/.test(p))) return 'Enter whole percentages separated by commas, such as 80, 100.';
  const values = parts.map(Number);
  if (values.some((v) => v < 1 || v > 1000)) return 'Each percentage is between 1 and 1000.';
  if (values.length > 10) return 'At most 10 thresholds.';
  if (new Set(values).size !== values.length) return 'Each percentage once.';
  return values.sort((a, b) => a - b);
}

const draftSchema = z
  .object({
    name: z.string(),
    targetType: z.enum(['workspace', 'agent', 'key']),
    targetId: z.string(),
    unit: z.enum(['usd', 'tokens']),
    amount: z.string(),
    period: z.enum(['day', 'week', 'month', 'total']),
    timezone: z.string(),
    action: z.enum(['block', 'notify']),
    alertAt: z.string(),
  })
  .superRefine((d, ctx) => {
    if (!d.name.trim()) ctx.addIssue({ code: 'custom', path: ['name'], message: 'Give the budget a name.' });
    if (d.targetType !== 'workspace' && !d.targetId) {
      ctx.addIssue({ code: 'custom', path: ['targetId'], message: d.targetType === 'agent' ? 'Choose the agent.' : 'Choose the key.' });
    }
    const amount = bare(d.amount);
    if (!amount) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'Enter the limit.' });
    else if (d.unit === 'usd' && (!USD.test(amount) || !(Number(amount) > 0) || Number(amount) > MAX_LIMIT_USD)) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: `Enter an amount in USD above 0 and up to ${MAX_LIMIT_USD.toLocaleString('en-US')}, with at most 2 decimals.` });
    } else if (d.unit === 'tokens' && (!/^\d+$/.test(amount) || Number(amount) < 1 || Number(amount) > MAX_LIMIT_TOKENS)) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'Enter a whole number of tokens, at least 1.' });
    }
    if (d.period !== 'total' && !d.timezone.trim()) ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'Enter a time zone, such as Europe/Berlin or UTC.' });
    const thresholds = parseThresholds(d.alertAt);
    if (typeof thresholds === 'string') ctx.addIssue({ code: 'custom', path: ['alertAt'], message: thresholds });
  });

type Draft = z.output<typeof draftSchema>;

const limitOf = (d: Draft) => (d.unit === 'usd' ? { usd: bare(d.amount) } : { tokens: Number(bare(d.amount)) });
const thresholdsOf = (d: Draft) => parseThresholds(d.alertAt) as number[];

const createDraft = draftSchema.transform((d) => ({
  name: d.name,
  target: d.targetType === 'workspace' ? { type: d.targetType } : { type: d.targetType, id: d.targetId },
  limit: limitOf(d),
  period: d.period,
  // A total never resets: its zone plays no part.
  timezone: d.period === 'total' ? 'UTC' : d.timezone.trim(),
  alertAt: thresholdsOf(d),
  action: d.action,
}));
export const createFormSchema = createDraft.pipe(createBudgetInput as unknown as z.ZodType<z.output<typeof createBudgetInput>, z.output<typeof createDraft>>);

const updateFields = updateBudgetInput.omit({ id: true });
const editDraft = draftSchema.transform((d) => ({ name: d.name, limit: limitOf(d), alertAt: thresholdsOf(d), action: d.action }));
export const editFormSchema = editDraft.pipe(updateFields as unknown as z.ZodType<z.output<typeof updateFields>, z.output<typeof editDraft>>);

/** Messages for the server schema's own checks (the draft's carry theirs). */
export function budgetMessage(issue: { code: string; path?: PropertyKey[] }): string | undefined {
  switch (issue.path?.[0]) {
    case 'name':
      return issue.code === 'too_small' ? 'Give the budget a name.' : 'Use at most 100 characters.';
    case 'timezone':
      return 'Use at most 100 characters.';
    default:
      return undefined;
  }
}

/** The form's fields top to bottom, each with the id its problem is revealed at, and the API parameters it answers for. */
export const FIELDS = [
  { name: 'name', target: 'budget-name', params: ['name'] },
  { name: 'targetId', target: 'budget-target-id', params: ['target'] },
  { name: 'amount', target: 'budget-amount', params: ['limit'] },
  { name: 'timezone', target: 'budget-timezone', params: ['timezone', 'period'] },
  { name: 'alertAt', target: 'budget-alerts', params: ['alertAt'] },
] as const;

export type FieldName = (typeof FIELDS)[number]['name'];

/** The field an API parameter belongs to (`limit.usd` → `amount`), or null for the form. */
export const placeOf = (param: string): FieldName | null => FIELDS.find((f) => (f.params as readonly string[]).includes(param.split('.')[0]!))?.name ?? null;
