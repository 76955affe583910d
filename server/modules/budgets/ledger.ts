import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { frozen, queryRows } from '../../../db/rows';
import { env } from '../../platform/env.js';
import { callCost, type PriceTable } from '../../platform/prices';
import { CHANNELS, notifyCall } from '../../platform/notify';

/** Deletes a run's reservations (reserve.ts), beside the charge that settles them. */
const releaseWrite = (executionId: string): SQL => sql`delete from budget_reservations where execution_id = ${executionId} returning 1`;

// The ledger (docs/budgets.md, "How spend is counted"): what each budget's current period has
// spent, charged as each model call ends and read before the next one starts. No process keeps
// a copy: the check reads the rows every worker writes, so a budget is exact across processes,
// and its overshoot is bounded by the calls already in flight when it was reached. There is no
// lock on the hot path: the charge is one additive upsert, the check one indexed read.

/** Whose run a charge or a check is about: what a budget's target can match. */
export interface RunScope {
  workspaceId: string;
  environment: string;
  agentId: string;
  /** The API key that started it (null: the dashboard, a schedule). */
  keyId: string | null;
}

/**
 * The first instant of budget `b`'s current period: local midnight in its zone (weeks on Monday,
 * months on the 1st) by PostgreSQL's `date_trunc(unit, now(), zone)`: on a day whose midnight
 * does not exist (a DST change at 00:00), the day's first instant. The epoch for `total`.
 */
export const periodStartOf = (b: string, at?: SQL): SQL =>
  b === 'b' && at === undefined
    ? PERIOD_START_B
    : sql`(case when ${sql.raw(b)}.period = 'total' then 'epoch'::timestamptz else date_trunc(${sql.raw(b)}.period, ${at ?? sql`now()`}, ${sql.raw(b)}.timezone) end)`;
const PERIOD_START_B = frozen(sql`(case when b.period = 'total' then 'epoch'::timestamptz else date_trunc(b.period, now(), b.timezone) end)`);

/**
 * When budget `b`'s current period ends: the next local midnight that starts a period, in its
 * zone (null for `total`). Computed on the local calendar (a period that began at 01:00 because
 * its midnight did not exist still ends at the next midnight).
 */
export const resetsAtOf = (b: string, at: SQL = sql`now()`): SQL =>
  sql`(case when ${sql.raw(b)}.period = 'total' then null
      else (date_trunc(${sql.raw(b)}.period, ${at} at time zone ${sql.raw(b)}.timezone) + ('1 ' || ${sql.raw(b)}.period)::interval) at time zone ${sql.raw(b)}.timezone end)`;

/** The budgets (alias `b`) that count a run: its workspace's, its agent's, and its key's. */
export function matching(run: RunScope): SQL {
  return sql`b.workspace_id = ${run.workspaceId} and b.environment = ${run.environment}
    and (b.target_type = 'workspace' or (b.target_type = 'agent' and b.target_id = ${run.agentId})
      or (b.target_type = 'key' and b.target_id = ${run.keyId ?? ''}))`;
}

/**
 * Whether spend row `s` of budget `b` has reached the limit: spent it, or had too little left for
 * a model call's prompt (reserve.ts marks the period `exceeded_at` then), until the period ends or
 * the limit is raised.
 */
const reached = frozen(sql`(coalesce(s.cost_usd, 0) >= b.limit_usd or coalesce(s.tokens, 0) >= b.limit_tokens or s.exceeded_at is not null)`);

/** Spend row `s` as a percentage of budget `b`'s limit (numeric). */
export const percentOf = frozen(sql`(case when b.limit_usd is not null then coalesce(s.cost_usd, 0) * 100 / nullif(b.limit_usd, 0)
  else coalesce(s.tokens, 0) * 100.0 / nullif(b.limit_tokens, 0) end)`);

/** Whether a model has no price (its live calls cannot be counted in USD): as analytics price it (platform/prices.ts). */
export function isUnpriced(model: string, environment: string, prices: PriceTable = env.MODEL_PRICES as PriceTable): boolean {
  return environment === 'live' && !model.startsWith('sandbox/') && !Object.hasOwn(prices, model);
}

/** `isUnpriced` in SQL, for a model read in the same statement (an agent's column). */
export function isUnpricedSql(model: SQL, environment: string, prices: PriceTable = env.MODEL_PRICES as PriceTable): SQL {
  return sql`(${environment} = 'live' and ${model} not like 'sandbox/%' and not jsonb_exists(${JSON.stringify(prices)}::jsonb, ${model}))`;
}

/** A `block` budget that refuses a run: it has reached its limit, or it counts USD and the model has no price. */
export interface Blocking {
  id: string;
  name: string;
  resetsAt: string | null;
  reason: 'spent' | 'unpriced';
}

/** Why `block` budget `b` with spend row `s` refuses a run ('spent' | 'unpriced'), or null (it does not; nor does a `notify` budget). `unpriced`: an SQL boolean. */
const refusal = (unpriced: SQL): SQL =>
  sql`(case when b.action <> 'block' then null when ${reached} then 'spent' when b.limit_usd is not null and ${unpriced} then 'unpriced' end)`;

/**
 * The first `block` budget that refuses a run now, as a JSON value or null (a subquery, so a
 * start can read it in the statement that reads the agent). `unpriced`: whether the run's model
 * has no price (an SQL boolean).
 */
export function blockingBudget(run: RunScope, unpriced: SQL): SQL<Blocking | null> {
  return sql<Blocking | null>`(select json_build_object('id', b.id, 'name', b.name, 'resetsAt', ${resetsAtOf('b')}, 'reason', ${refusal(unpriced)})
      from budgets b left join budget_spend s on s.budget_id = b.id and s.period_start = ${periodStartOf('b')}
      where ${matching(run)} and ${refusal(unpriced)} is not null
      order by b.id limit 1)`;
}


/**
 * Which budgets count a run, as a subquery (a start reads it with the agent, and hands it to the
 * run's first call): 'block' when a `block` budget does, 'notify' when only `notify` ones do, null
 * when none does.
 */
export const countedBy = (run: RunScope): SQL<'block' | 'notify' | null> =>
  sql<'block' | 'notify' | null>`(select min(b.action) from budgets b where ${matching(run)})`; // 'block' sorts first

/** How recent a start's reading of the budgets must be to stand for the check before the run's first call (participant.ts). */
export const FRESH_MS = 1_000;

/**
 * The budgets' verdict before a model call, in one indexed read of the budgets counting the run
 * (usually none) and their current period's row: the first `block` budget refusing the call, and
 * whether any budget counts the run at all.
 */
export async function checkBudgets(db: Db, run: RunScope, model: string): Promise<{ blocking: Blocking | null; counted: boolean; blocks: boolean }> {
  const rows = await queryRows<{ id: string; name: string; action: string; resets_at: Date | string | null; reason: Blocking['reason'] | null }>(
    db,
    sql`select b.id, b.name, b.action, case when b.action = 'block' and ${reached} then ${resetsAtOf('b')} end as resets_at,
        ${refusal(sql`${isUnpriced(model, run.environment)}::boolean`)} as reason
      from budgets b left join budget_spend s on s.budget_id = b.id and s.period_start = ${periodStartOf('b')}
      where ${matching(run)} order by b.id`,
  );
  const refusing = rows.find((r) => r.reason !== null);
  const blocking = refusing ? { id: refusing.id, name: refusing.name, resetsAt: refusing.resets_at === null ? null : new Date(refusing.resets_at).toISOString(), reason: refusing.reason! } : null;
  return { blocking, counted: rows.length > 0, blocks: rows.some((r) => r.action === 'block') };
}

/** A refusal's words: which budget, and when it allows runs again. */
export function blockedMessage(b: Blocking): string {
  const name = `budget '${b.name}' (${b.id})`;
  if (b.reason === 'unpriced') return `The ${name} counts USD, and this live model has no price in MODEL_PRICES: it cannot run under a blocking USD budget`;
  return `The ${name} is exceeded; ${b.resetsAt ? `it resets at ${new Date(b.resetsAt).toISOString()}` : 'its period is `total` and never resets'} (raise its limit to go on now)`;
}

type Call = { model: string; inputTokens: number; outputTokens: number };

/**
 * The upsert that adds a model call's cost and tokens to every budget counting the run, each in
 * its current period, returning the new rows (`s.*`). The cost is analytics' own
 * (platform/prices.ts `callCost`: 0 in test mode and on the sandbox; unknown for a live model
 * with no price, counted in `unpriced`).
 */
function chargeUpsert(run: RunScope, call: Call): SQL {
  const cost = callCost(run.environment, call.model, call.inputTokens, call.outputTokens);
  return sql`insert into budget_spend as s (budget_id, period_start, cost_usd, tokens, unpriced)
      select b.id, ${periodStartOf('b')}, coalesce(${cost}, 0), ${call.inputTokens + call.outputTokens}::bigint, (${cost} is null)::int
      from budgets b where ${matching(run)}
      on conflict (budget_id, period_start) do update
        set cost_usd = s.cost_usd + excluded.cost_usd, tokens = s.tokens + excluded.tokens, unpriced = s.unpriced + excluded.unpriced
      returning s.*`;
}

/** Thresholds (percent) spend row `s` of budget `b` has reached and not alerted this period, ascending (an int[]). */
export const thresholdsDue = frozen(sql`array(select t from unnest(b.alert_at) t where t <= ${percentOf} and not (t = any(s.alerted)) order by t)`);

/** Whether spend row `s` of budget `b` reached its limit with no `budget.exceeded` sent this period. */
export const exceededDue = frozen(sql`(s.exceeded_at is null and ${reached})`);

/** Whether spend row `s` of budget `b` has an alert to send: a threshold reached and not alerted, or the limit reached with no `exceeded_at`. */
const alertDue = frozen(sql`(${exceededDue} or exists (select 1 from unnest(b.alert_at) t where t <= ${percentOf} and not (t = any(s.alerted))))`);

/**
 * Charges a model call now, in one statement (ledger rows `chargeUpsert`), and returns the
 * budgets that now have an alert to send (alerts.ts `sendDueAlerts` sends them).
 */
export async function charge(db: Db, run: RunScope, call: Call, release?: string): Promise<string[]> {
  const rows = await queryRows<{ budget_id: string }>(
    db,
    sql`with up as (${chargeUpsert(run, call)})${release ? sql`, released as (${releaseWrite(release)})` : sql``}
    select s.budget_id from up s join budgets b on b.id = s.budget_id where ${alertDue}`,
  );
  return rows.map((r) => r.budget_id);
}

/** A charge as part of another statement (db/rows.ts `writeAll`): its upsert, and the signal naming the budgets with an alert due. */
export interface FoldedCharge {
  write: SQL;
  /** The run's reservations deleted (reserve.ts), when it made any: another write of the statement. */
  release?: SQL;
  /** `alias`: the name `writeAll` gives the write. */
  signal(alias: string): SQL;
}

/**
 * A run's last model call charged in the statement that finishes the run (lifecycle.ts `finish`)
 * rather than in one of its own: a run of one model call then costs the ledger no statement. The
 * budgets whose alerts it crossed are signalled (`aas_budgets`) at the commit, and a worker sends them.
 */
export function foldedCharge(run: RunScope, call: Call, release?: string): FoldedCharge {
  return {
    write: chargeUpsert(run, call),
    ...(release ? { release: releaseWrite(release) } : {}),
    signal: (alias) => {
      let signal = signals.get(alias);
      if (!signal) {
        signal = frozen(sql`(select case when count(*) > 0 then ${notifyCall(CHANNELS.budgets, sql`string_agg(s.budget_id, ',')`)} end
          from ${sql.raw(alias)} s join budgets b on b.id = s.budget_id where ${alertDue})`);
        signals.set(alias, signal);
      }
      return signal;
    },
  };
}
const signals = new Map<string, SQL>();



/** `{80,100}` as PGlite may print an int[] inside a row it does not parse. */
export const parseIntArray = (text: string): number[] =>
  text
    .replace(/[{}]/g, '')
    .split(',')
    .filter(Boolean)
    .map(Number);

/** How long a closed period's ledger row is kept (the dashboard's forecast and history read the current one only). */
export const LEDGER_RETENTION_DAYS = 400;

/**
 * Deletes ledger rows of periods that ended over LEDGER_RETENTION_DAYS ago (never a `total`
 * budget's, never one whose `budget.reset` is still due), and the usage-spike claims of days
 * past the week the spike rule reads. Returns how many rows went.
 */
export async function pruneLedger(db: Db, now = new Date()): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with spend as (
        delete from budget_spend s using budgets b
        where b.id = s.budget_id and b.period <> 'total' and (s.exceeded_at is null or s.reset_at is not null)
          and s.period_start < ${now.toISOString()}::timestamptz - make_interval(days => ${LEDGER_RETENTION_DAYS + 31}) returning 1),
      claims as (delete from key_usage_alerts where day < (${now.toISOString()}::timestamptz at time zone 'UTC')::date - 8 returning 1)
      select ((select count(*) from spend) + (select count(*) from claims))::int as n`,
  );
  return rows[0]?.n ?? 0;
}
