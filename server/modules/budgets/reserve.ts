import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { env } from '../../platform/env.js';
import { callCost, type PriceTable } from '../../platform/prices';
import { markExhausted } from './alerts';
import { matching, periodStartOf, resetsAtOf, type RunScope } from './ledger';

// Reservations (docs/budgets.md, "Reservations"): before a model call of a run that a `block`
// budget counts, its worst case — the prompt's tokens (estimated) and the most it may answer —
// is reserved on every such budget, under the budgets' row locks, so that calls in flight at
// once cannot together pass a limit: the reader of a budget sees what it spent and what the calls
// in flight may still spend. The most a call may answer is what the tightest budget has left
// after its prompt (at most RESERVE_OUTPUT_TOKENS), sent to the model as the call's maximum
// output, so the reservation is a true bound. The call's charge deletes the reservation (ledger.ts
// `charge`, `foldedCharge`). A reservation counts only while its run is `running` and before its
// `expires_at` (the run's deadline): a lost process's reservations stop counting when the sweeper
// fails its runs, and maintenance deletes them.

/** What a run under `block` budgets asks of the next model call. */
export interface CallAsk {
  executionId: string;
  model: string;
  /** The prompt's tokens, estimated (`estimateTokens`). */
  inputTokens: number;
  /** When the reservation stops counting, whatever happens to the run (its deadline). */
  expiresAt: Date;
}

export type Reservation =
  /** Reserved (or no `block` budget counts the run: `maxOutputTokens` null, nothing reserved). */
  | { kind: 'reserved'; maxOutputTokens: number | null }
  /** A budget has no room for the call, whatever the calls in flight spend: the run stops. */
  | { kind: 'refused'; message: string }
  /** Calls in flight hold the room this call needs: ask again once they settle. */
  | { kind: 'wait' };

/** The most a call under a `block` budget may answer (its reservation's output part). */
export const reserveOutputTokens = (): number => env.BUDGET_RESERVE_OUTPUT_TOKENS;

interface Room {
  id: string;
  name: string;
  limit_tokens: string | number | null;
  limit_usd: string | null;
  spent_tokens: string | number;
  spent_usd: string;
  reserved_tokens: string | number;
  reserved_usd: string;
  resets_at: Date | string | null;
  exceeded_at: Date | string | null;
}

/**
 * Reserves the call's worst case on every `block` budget counting the run, in one transaction:
 * the budgets' rows locked (calls racing on any process reserve one after another), then each
 * one's room read (limit − spent this period − what other running calls reserved) and the
 * reservations written. Nothing is reserved when no `block` budget counts the run.
 */
export async function reserveCall(db: Db, run: RunScope, ask: CallAsk, prices: PriceTable = env.MODEL_PRICES as PriceTable): Promise<Reservation> {
  return transaction(db, async (tx) => {
    // `no key update`: reservations wait for each other, while the foreign-key checks of ledger
    // writes (a key-share lock on the budget) do not wait for a reservation, which may itself wait
    // for their ledger row (a deadlock: test/budgets/alerts.int.test.ts).
    const locked = await queryRows<{ id: string }>(tx, sql`select b.id from budgets b where ${matching(run)} and b.action = 'block' order by b.id for no key update`);
    if (locked.length === 0) return { kind: 'reserved', maxOutputTokens: null };
    // A statement of its own after the lock: it reads what the calls that held the lock before committed.
    const rooms = await queryRows<Room>(
      tx,
      sql`select b.id, b.name, b.limit_tokens, b.limit_usd::text as limit_usd, ${resetsAtOf('b')} as resets_at,
          coalesce(s.tokens, 0) as spent_tokens, coalesce(s.cost_usd, 0)::text as spent_usd, s.exceeded_at,
          coalesce(r.tokens, 0) as reserved_tokens, coalesce(r.usd, 0)::text as reserved_usd
        from budgets b
        left join budget_spend s on s.budget_id = b.id and s.period_start = ${periodStartOf('b')}
        left join lateral (
          select sum(r.tokens) as tokens, sum(r.cost_usd) as usd from budget_reservations r join executions e on e.id = r.execution_id
          where r.budget_id = b.id and r.expires_at > now() and e.status = 'running' and r.execution_id <> ${ask.executionId}) r on true
        where ${matching(run)} and b.action = 'block' order by b.id`,
    );
    const price = priceOf(run.environment, ask.model, prices);
    let allowance = reserveOutputTokens();
    for (const room of rooms) {
      const fit = fitting(room, ask.inputTokens, price);
      if (fit.kind === 'wait') return { kind: 'wait' };
      if (fit.kind === 'refused') {
        // What is left cannot hold a call: the budget counts as reached for the rest of the period
        // (402 on execute, `budget.exceeded`), as when spend meets the limit.
        await markExhausted(tx, { workspaceId: run.workspaceId, environment: run.environment as 'live' | 'test' }, room.id);
        return { kind: 'refused', message: refusedMessage(room, ask.inputTokens) };
      }
      allowance = Math.min(allowance, fit.output);
    }
    const tokens = ask.inputTokens + allowance;
    const cost = callCost(run.environment, ask.model, ask.inputTokens, allowance, prices);
    await tx.execute(sql`insert into budget_reservations (id, budget_id, execution_id, tokens, cost_usd, expires_at)
      select gen_random_uuid()::text, b.id, ${ask.executionId}, ${tokens}, coalesce(${cost}, 0), ${ask.expiresAt.toISOString()}::timestamptz
      from budgets b where ${matching(run)} and b.action = 'block'`);
    return { kind: 'reserved', maxOutputTokens: allowance };
  });
}

/** USD per token of the model's input and output; null: free (test mode, the sandbox). */
function priceOf(environment: string, model: string, prices: PriceTable): { input: number; output: number } | null {
  if (environment === 'test' || model.startsWith('sandbox/')) return null;
  const p = Object.hasOwn(prices, model) ? prices[model] : undefined;
  // A live model with no price never gets here under a USD `block` budget (refused before: ledger.ts).
  return p ? { input: p.input / 1e6, output: p.output / 1e6 } : null;
}

type Fit = { kind: 'fits'; output: number } | { kind: 'refused' } | { kind: 'wait' };

/**
 * Whether a call with this prompt fits a budget's room, and the most it may answer there:
 * refused when the prompt alone passes what the period has left; `wait` when it would fit but
 * for what other calls in flight reserved.
 */
function fitting(room: Room, inputTokens: number, price: { input: number; output: number } | null): Fit {
  // Found exceeded this period (spent, or too little left for a call before): refused until the limit is raised.
  if (room.exceeded_at !== null) return { kind: 'refused' };
  if (room.limit_tokens !== null) {
    const left = Number(room.limit_tokens) - Number(room.spent_tokens) - inputTokens;
    if (left < 1) return { kind: 'refused' };
    const free = left - Number(room.reserved_tokens);
    return free < 1 ? { kind: 'wait' } : { kind: 'fits', output: Math.floor(free) };
  }
  if (price === null || price.output === 0) return { kind: 'fits', output: Number.MAX_SAFE_INTEGER };
  const left = Number(room.limit_usd) - Number(room.spent_usd) - inputTokens * price.input;
  if (left < price.output) return { kind: 'refused' };
  const free = left - Number(room.reserved_usd);
  return free < price.output ? { kind: 'wait' } : { kind: 'fits', output: Math.floor(free / price.output) };
}

function refusedMessage(room: Room, inputTokens: number): string {
  const resets = room.resets_at === null ? 'its period is `total` and never resets' : `it resets at ${new Date(room.resets_at).toISOString()}`;
  return `The budget '${room.name}' (${room.id}) is exceeded: what it has left cannot hold the next model call (its prompt is about ${inputTokens} tokens); ${resets} (raise its limit to go on now)`;
}

/**
 * The prompt's tokens, estimated from what the model reads of it: one token for every three
 * characters of the instructions, the messages' text, tool calls and results, and the tools'
 * definitions (English runs about four characters a token, so this is on the high side), plus a
 * few tokens a message for the chat format. Strings count by their length; a message's wrapping
 * (roles, part types) does not.
 */
export function estimateTokens(parts: { instructions: string | null; messages: readonly unknown[]; tools: unknown }): number {
  const chars = (parts.instructions?.length ?? 0) + textLength(parts.messages) + (parts.tools ? JSON.stringify(parts.tools).length : 0);
  return Math.ceil(chars / 3) + 4 * (parts.messages.length + 1);
}

/** The characters of text in a message (or any part of one): its strings, and the JSON of values that are not text parts. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + textLength(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  const part = value as Record<string, unknown>;
  let n = 0;
  for (const key of ['content', 'text', 'toolName', 'output']) if (key in part) n += textLength(part[key]);
  // A tool call's arguments and a result's value are read as JSON (a text value as it is).
  if ('input' in part) n += JSON.stringify(part.input ?? null).length;
  if ('value' in part) n += typeof part.value === 'string' ? part.value.length : JSON.stringify(part.value ?? null).length;
  return n;
}

/** Deletes reservations no longer counted (their run ended, or past their expiry): maintenance. */
export async function pruneReservations(db: Db): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with gone as (delete from budget_reservations r where r.expires_at <= now()
        or not exists (select 1 from executions e where e.id = r.execution_id and e.status = 'running') returning 1)
      select count(*)::int as n from gone`,
  );
  return rows[0]?.n ?? 0;
}
