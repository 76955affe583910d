import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows, textArray } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { budgets } from '../../../db/schema';
import { emit } from '../events/emit';
import { log } from '../../platform/log';
import { repeat } from '../../platform/repeat';
import { CHANNELS, type Bus } from '../../platform/notify';
import { exceededDue, parseIntArray, periodStartOf, thresholdsDue } from './ledger';
import { budgetViewsOf } from './service';

// Budget alerts (docs/budgets.md, "Alerts"): `budget.threshold_reached` once per threshold per
// period, `budget.exceeded` once per period, `budget.reset` when a period starts after an
// exceeded one. Each is claimed by a conditional update of the period's ledger row (the
// threshold not yet in `alerted`, `exceeded_at` or `reset_at` still null) in the transaction that
// writes its event to the outbox: sent once, whichever processes race for it.

type Owner = { workspaceId: string; environment: 'live' | 'test' };

/** The alerts one budget's period has to send: thresholds reached and not alerted, and whether `budget.exceeded` is due. */
interface Due {
  budgetId: string;
  periodStart: Date;
  thresholds: number[];
  exceeded: boolean;
}

/** Emits `type` for budget `id` (its view as the API shows it, with `extra`), in `tx`. */
async function emitFor(tx: Db, owner: Owner, id: string, type: 'budget.threshold_reached' | 'budget.exceeded' | 'budget.reset', extras: Record<string, unknown>[]): Promise<boolean> {
  const [row] = await tx.select().from(budgets).where(eq(budgets.id, id));
  if (!row) return false;
  const [view] = await budgetViewsOf(tx, [row]);
  for (const extra of extras) await emit(tx, owner, type, { ...view!, ...extra });
  return true;
}

/**
 * Marks budget `id`'s current period exceeded because what it had left could not hold a model
 * call (reserve.ts), in `tx`: from then on it refuses runs like a budget spent to its limit. Sends
 * `budget.exceeded` when this claims the period's mark (once a period, as for a spent limit).
 */
export async function markExhausted(tx: Db, owner: Owner, id: string): Promise<void> {
  const claimed = await queryRows(
    tx,
    sql`insert into budget_spend as s (budget_id, period_start, exceeded_at) select b.id, ${periodStartOf('b')}, now() from budgets b where b.id = ${id}
        on conflict (budget_id, period_start) do update set exceeded_at = now() where s.exceeded_at is null returning 1`,
  );
  if (claimed.length > 0) await emitFor(tx, owner, id, 'budget.exceeded', [{}]);
}

/** Sends one budget's due alerts, each claimed by a conditional update in the transaction that writes its event. */
async function sendAlerts(db: Db, owner: Owner, d: Due): Promise<void> {
  await transaction(db, async (tx) => {
    const at = sql`budget_id = ${d.budgetId} and period_start = ${d.periodStart.toISOString()}::timestamptz`;
    const thresholds: number[] = [];
    for (const t of d.thresholds) {
      const claimed = await queryRows(tx, sql`update budget_spend set alerted = alerted || ${t}::int where ${at} and not (${t}::int = any(alerted)) returning 1`);
      if (claimed.length > 0) thresholds.push(t);
    }
    const exceeded = d.exceeded && (await queryRows(tx, sql`update budget_spend set exceeded_at = now() where ${at} and exceeded_at is null returning 1`)).length > 0;
    if (thresholds.length > 0) await emitFor(tx, owner, d.budgetId, 'budget.threshold_reached', thresholds.map((percent) => ({ percent })));
    if (exceeded) await emitFor(tx, owner, d.budgetId, 'budget.exceeded', [{}]);
  });
}

/**
 * `budget.reset` for each budget whose previous period was exceeded and has ended, and the
 * alerts a charge crossed but could not send (its process stopped in between): both found in
 * the ledger, so a minute's loop on any worker catches them.
 */
export async function sweepBudgetAlerts(db: Db): Promise<{ resets: number; alerts: number }> {
  const ended = await queryRows<{ budget_id: string; period_start: Date | string; workspace_id: string; environment: 'live' | 'test' }>(
    db,
    sql`select s.budget_id, s.period_start, b.workspace_id, b.environment from budget_spend s join budgets b on b.id = s.budget_id
        where s.exceeded_at is not null and s.reset_at is null and s.period_start < ${periodStartOf('b')} limit 100`,
  );
  let resets = 0;
  for (const e of ended) {
    await transaction(db, async (tx) => {
      const claimed = await queryRows(
        tx,
        sql`update budget_spend set reset_at = now() where budget_id = ${e.budget_id} and period_start = ${new Date(e.period_start).toISOString()}::timestamptz and reset_at is null returning 1`,
      );
      if (claimed.length === 0) return;
      if (await emitFor(tx, { workspaceId: e.workspace_id, environment: e.environment }, e.budget_id, 'budget.reset', [{}])) resets++;
    });
  }
  const alerts = await sendDueAlerts(db);
  return { resets, alerts };
}

/**
 * Sends the alerts crossed and not sent yet: the current period's rows past a threshold not in
 * `alerted`, or past the limit with no `exceeded_at` — of the budgets `ids`, or of every budget.
 * Returns how many budgets had one.
 */
export async function sendDueAlerts(db: Db, ids?: string[]): Promise<number> {
  const which = ids ? sql`and b.id = any(${textArray(ids)})` : sql``;
  const due = await queryRows<{ budget_id: string; period_start: Date | string; workspace_id: string; environment: Owner['environment']; thresholds: number[] | string; exceeded: boolean }>(
    db,
    sql`select * from (
      select s.budget_id, s.period_start, b.workspace_id, b.environment, ${thresholdsDue} as thresholds, ${exceededDue} as exceeded
      from budget_spend s join budgets b on b.id = s.budget_id and s.period_start = ${periodStartOf('b')} ${which}
    ) x where cardinality(x.thresholds) > 0 or x.exceeded limit 100`,
  );
  for (const m of due) {
    const thresholds = typeof m.thresholds === 'string' ? parseIntArray(m.thresholds) : m.thresholds;
    await sendAlerts(db, { workspaceId: m.workspace_id, environment: m.environment }, { budgetId: m.budget_id, periodStart: new Date(m.period_start), thresholds, exceeded: m.exceeded });
  }
  return due.length;
}

/** Sweeps a few seconds past every minute (a day's period starts on a minute), until stopped. */
export function startBudgetAlerts(db: Db, bus: Bus): () => Promise<void> {
  // A run's last call is charged in its finish (ledger.ts `foldedCharge`), which signals the budgets it made due.
  let queue: Promise<unknown> = Promise.resolve();
  const off = bus.subscribe(CHANNELS.budgets, (ids) => {
    queue = queue.then(() => sendDueAlerts(db, ids)).catch((err: unknown) => log.error({ err }, 'budget alerts failed'));
  });
  const stop = repeat(
    async () => {
      try {
        await sweepBudgetAlerts(db);
      } catch (err) {
        log.error({ err }, 'budget alert sweep failed');
      }
    },
    () => 60_000 - (Date.now() % 60_000) + 2_000,
    { now: true },
  );
  return async () => {
    off();
    await stop();
    await queue;
  };
}
