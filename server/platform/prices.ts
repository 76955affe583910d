import { sql, type SQL } from 'drizzle-orm';
import { env } from './env.js';

// The estimated cost of an execution (docs/analytics.md; budgets will charge with it too,
// docs/budgets-plan.md, so it lives below the modules that use it): its tokens at the operator's prices
// (MODEL_PRICES, USD per 1M tokens), in exact decimal arithmetic in the database. Test mode, the
// sandbox and an execution that used no tokens (one that failed before its model answered) cost
// 0; a live execution that used tokens of a model without a price has an unknown cost (null),
// which the rows it falls in report as `costUsd: null`, never as 0.

export type PriceTable = Record<string, { input: number; output: number }>;

/** The price table as a relation `p(model, input, output)` to join on. */
const priceRelation = (prices: PriceTable): SQL =>
  sql`jsonb_to_recordset(${JSON.stringify(Object.entries(prices).map(([model, p]) => ({ model, input: p.input, output: p.output })))}::jsonb)`;

/**
 * The cost of one model call as an SQL numeric, by the same rule as `pricedFrom` (budgets charge
 * it as each call ends: docs/budgets.md): 0 in test mode, on the sandbox and for no tokens; null
 * for a live model with no price; else its tokens at its prices, in exact decimal arithmetic in
 * the database (the prices are sent as their JSON text, as `pricedFrom` reads them).
 */
export function callCost(environment: string, model: string, inputTokens: number, outputTokens: number, prices: PriceTable = env.MODEL_PRICES as PriceTable): SQL {
  if (inputTokens === 0 && outputTokens === 0) return sql`0::numeric`;
  if (environment !== 'test' && !model.startsWith('sandbox/') && !Object.hasOwn(prices, model)) return sql`null::numeric`;
  return costOf(environment, model, sql`${inputTokens}::numeric`, sql`${outputTokens}::numeric`, prices);
}

/**
 * `callCost` over token counts the statement reads (a column: a trace's model calls, one model
 * each run), by the same rule: 0 for none of them.
 */
export function costOf(environment: string, model: string, inputTokens: SQL, outputTokens: SQL, prices: PriceTable = env.MODEL_PRICES as PriceTable): SQL {
  if (environment === 'test' || model.startsWith('sandbox/')) return sql`0::numeric`;
  const p = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (!p) return sql`(case when ${inputTokens} = 0 and ${outputTokens} = 0 then 0::numeric end)`;
  return sql`((${inputTokens} * ${JSON.stringify(p.input)}::numeric + ${outputTokens} * ${JSON.stringify(p.output)}::numeric) / 1000000)`;
}

/**
 * The cost of the rows of `source` (aliased `r`, with environment, model, input_tokens and
 * output_tokens): `from <source> r left join <prices> p on …` and the cost expression.
 */
export function pricedFrom(source: SQL, prices: PriceTable = env.MODEL_PRICES as PriceTable): { from: SQL; cost: SQL } {
  return {
    from: sql`${source} r left join ${priceRelation(prices)} as p(model text, input numeric, output numeric) on p.model = r.model`,
    cost: sql`(case when r.environment = 'test' or r.model like 'sandbox/%' or (r.input_tokens = 0 and r.output_tokens = 0) then 0::numeric
      when p.model is null then null
      else (r.input_tokens * p.input + r.output_tokens * p.output) / 1000000 end)`,
  };
}

/** A number's shortest decimal text (as JSON writes it, as the database reads prices) as an integer and a scale: 2.5 → 25n, 1. */
function decimalOf(x: number): { digits: bigint; scale: number } {
  const [mantissa, exp = '0'] = String(x).toLowerCase().split('e');
  const [whole, fraction = ''] = mantissa!.split('.');
  const e = Number(exp);
  const digits = BigInt(whole! + fraction);
  const scale = fraction.length - e;
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/**
 * `callCost` computed here rather than in the database, as an exact decimal string (what leaves
 * the service: exported spans, docs/traces.md), by the same rule; null: unknown.
 */
export function callCostText(environment: string, model: string, inputTokens: number, outputTokens: number, prices: PriceTable = env.MODEL_PRICES as PriceTable): string | null {
  if (environment === 'test' || model.startsWith('sandbox/') || (inputTokens === 0 && outputTokens === 0)) return '0';
  const p = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (!p) return null;
  const a = decimalOf(p.input);
  const b = decimalOf(p.output);
  const scale = Math.max(a.scale, b.scale);
  const up = (d: { digits: bigint; scale: number }) => d.digits * 10n ** BigInt(scale - d.scale);
  // (tokens × price) / 10^6, at `scale + 6` decimals: exact.
  const units = BigInt(inputTokens) * up(a) + BigInt(outputTokens) * up(b);
  const text = units.toString().padStart(scale + 7, '0');
  const whole = text.slice(0, text.length - scale - 6);
  const fraction = text.slice(text.length - scale - 6).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
