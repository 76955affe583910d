import { audit, changesOf } from '../audit/record';
import { and, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { queryRows, textArray } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { agents, apiKeys, budgets } from '../../../db/schema';
import type { Actor } from '../actor';
import { ApiError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { keysetList } from '../../platform/keyset';
import { assertSafeKeys } from '../../platform/metadata';
import type { Page, PageParams } from '../../platform/pagination';
import { pricedFrom } from '../../platform/prices';
import { assertUnderLimit } from '../../platform/resource-limit';
import { checkTimeZone } from '../vocabulary/time-zones';
import { periodStartOf, percentOf, resetsAtOf } from './ledger';
import { MAX_BUDGETS, type budgetSchema, type createBudgetInput, type listBudgetsInput, type updateBudgetInput } from './schemas';

// Budgets (docs/api.md, "Budgets"; docs/budgets.md): create, list, read, change and delete, in
// the caller's workspace and environment. A view carries the current period's spend, read from
// the ledger (ledger.ts) with the period computed in SQL in the budget's zone.

export type BudgetView = z.infer<typeof budgetSchema>;
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;
type BudgetRow = typeof budgets.$inferSelect;
type CreateInput = z.infer<typeof createBudgetInput>;
type UpdateInput = Omit<z.infer<typeof updateBudgetInput>, 'id'>;

/** The current period of a budget as the ledger holds it. */
interface Spend {
  cost_usd: string | null;
  tokens: string | number | null;
  unpriced: number | null;
  period_start: Date | string;
  resets_at: Date | string | null;
  /** When the period was found exceeded: spent to its limit, or too little left for a call (reserve.ts). */
  exceeded_at: Date | string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** An exact decimal as the API prints USD: no trailing zeros past the cents ("3.10", "0.00000015"). */
export function usdText(value: string | null): string {
  const [whole = '0', fraction = ''] = (value ?? '0').split('.');
  const digits = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${digits}`;
}

export function budgetView(row: BudgetRow, spend: Spend): BudgetView {
  const usd = usdText(spend.cost_usd);
  const tokens = Number(spend.tokens ?? 0);
  const exceeded = spend.exceeded_at != null || (row.limitUsd !== null ? Number(usd) >= Number(row.limitUsd) : tokens >= (row.limitTokens ?? 0));
  return {
    id: row.id,
    name: row.name,
    target: row.targetType === 'workspace' ? { type: 'workspace' } : { type: row.targetType, id: row.targetId! },
    limit: row.limitUsd !== null ? { usd: Number(row.limitUsd).toFixed(2) } : { tokens: row.limitTokens! },
    period: row.period,
    timezone: row.timezone,
    alertAt: row.alertAt,
    action: row.action,
    metadata: row.metadata,
    spent: { usd, tokens, unpricedCalls: spend.unpriced ?? 0 },
    periodStart: iso(spend.period_start)!,
    resetsAt: iso(spend.resets_at),
    status: exceeded ? 'exceeded' : 'ok',
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The current period's spend of each budget (a row per id, zero when nothing was charged yet). */
async function spendOf(db: Db, ids: string[]): Promise<Map<string, Spend>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<Spend & { id: string }>(
    db,
    sql`select b.id, s.cost_usd::text as cost_usd, s.tokens, s.unpriced, s.exceeded_at, ${periodStartOf('b')} as period_start, ${resetsAtOf('b')} as resets_at
        from budgets b left join budget_spend s on s.budget_id = b.id and s.period_start = ${periodStartOf('b')}
        where b.id = any(${textArray(ids)})`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export async function budgetViewsOf(db: Db, rows: BudgetRow[]): Promise<BudgetView[]> {
  const spend = await spendOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => budgetView(r, spend.get(r.id)!));
}

const budgetList = keysetList({
  name: 'budgets',
  prefix: 'bdg',
  table: budgets,
  columns: getTableColumns(budgets),
  filters: { targetType: budgets.targetType, targetId: budgets.targetId },
});

/** What zod cannot see in the raw input: a metadata key named like an inherited property. */
export function assertSafeBudgetInput(raw: unknown): void {
  assertSafeKeys(raw, 'metadata');
}

const owned = (owner: Owner, id: string) => and(eq(budgets.id, id), eq(budgets.workspaceId, owner.workspaceId), eq(budgets.environment, owner.environment));

/** The zone as schedules check it (vocabulary/time-zones.ts), and as the database knows it: periods are computed there. */
async function checkedZone(db: Db, zone: string): Promise<string> {
  const z = checkTimeZone(zone);
  if (!z.ok) throw new ApiError('invalid_parameter', `'timezone': ${z.message}`, { param: 'timezone' });
  try {
    await db.execute(sql`select now() at time zone ${z.value}`);
  } catch {
    throw new ApiError('invalid_parameter', `'timezone': the database does not know the zone '${z.value}'`, { param: 'timezone' });
  }
  return z.value;
}

/** The target must be the owner's: an agent not deleted, a key not revoked (share-locked: a concurrent delete waits for this transaction). */
async function checkTarget(tx: Db, owner: Owner, target: CreateInput['target']): Promise<void> {
  if (target.type === 'workspace') return;
  const missing = new ApiError('resource_not_found', `No such ${target.type}: '${target.id.slice(0, 64)}'`, { param: 'target.id' });
  if (target.type === 'agent') {
    if (!isId('agt', target.id)) throw missing;
    const [row] = await tx
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.id, target.id), eq(agents.workspaceId, owner.workspaceId), eq(agents.environment, owner.environment), isNull(agents.deletedAt)))
      .for('share');
    if (!row) throw missing;
    return;
  }
  if (!isId('key', target.id)) throw missing;
  const [row] = await tx
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, target.id), eq(apiKeys.workspaceId, owner.workspaceId), eq(apiKeys.environment, owner.environment), isNull(apiKeys.revokedAt)))
    .for('share');
  if (!row) throw missing;
}

/**
 * A new budget's first period row, from what its target's finished runs of the period already
 * spent (the executions analytics count, priced as analytics price them). Runs still in progress
 * count from their next model call on (docs/budgets.md).
 */
async function openPeriod(tx: Db, row: BudgetRow): Promise<void> {
  const target =
    row.targetType === 'agent' ? sql`and r.agent_id = ${row.targetId}` : row.targetType === 'key' ? sql`and r.key_id = ${row.targetId}` : sql``;
  const priced = pricedFrom(sql`executions`);
  await tx.execute(sql`insert into budget_spend (budget_id, period_start, cost_usd, tokens, unpriced)
    select b.id, ${periodStartOf('b')}, coalesce(sum(coalesce(x.cost, 0)), 0), coalesce(sum(x.tokens), 0), count(x.tokens) filter (where x.cost is null)
    from budgets b left join lateral (
      select ${priced.cost} as cost, r.input_tokens + r.output_tokens as tokens from ${priced.from}
      where r.workspace_id = ${row.workspaceId} and r.environment = ${row.environment} and r.completed_at >= ${periodStartOf('b')} ${target}
    ) x on true
    where b.id = ${row.id}
    group by b.id`);
}

/** What a budget's audit records show of it (its settings, not its spend). */
const BUDGET_AUDITED = ['name', 'target', 'limit', 'period', 'timezone', 'alertAt', 'action', 'metadata'] as const;

export async function createBudget(db: Db, actor: Owner, input: CreateInput, now = new Date()): Promise<BudgetView> {
  const timezone = await checkedZone(db, input.timezone);
  return transaction(db, async (tx) => {
    await assertUnderLimit(tx, budgets, actor, { name: 'budgets', max: MAX_BUDGETS, code: 'budget_limit_reached' });
    await checkTarget(tx, actor, input.target);
    const [row] = await tx
      .insert(budgets)
      .values({
        id: newId('bdg'),
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        name: input.name,
        targetType: input.target.type,
        targetId: input.target.type === 'workspace' ? null : input.target.id,
        limitUsd: 'usd' in input.limit ? input.limit.usd : null,
        limitTokens: 'tokens' in input.limit ? input.limit.tokens : null,
        period: input.period,
        timezone,
        alertAt: [...input.alertAt].sort((a, b) => a - b),
        action: input.action,
        metadata: input.metadata,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await openPeriod(tx, row!);
    const view = (await budgetViewsOf(tx, [row!]))[0]!;
    await audit(tx, actor, { action: 'budget.created', target: { type: 'budget', id: view.id }, changes: changesOf(null, view, BUDGET_AUDITED) });
    return view;
  });
}

export async function listBudgets(db: Db, actor: Owner, params: PageParams & Omit<z.infer<typeof listBudgetsInput>, keyof PageParams>): Promise<Page<BudgetView>> {
  const page = await budgetList.page(db, actor, params);
  return { ...page, data: await budgetViewsOf(db, page.data as BudgetRow[]) };
}

export async function getBudget(db: Db, actor: Owner, id: string): Promise<BudgetView> {
  if (!isId('bdg', id)) throw notFound('budget', id);
  const [row] = await db.select().from(budgets).where(owned(actor, id));
  if (!row) throw notFound('budget', id);
  return (await budgetViewsOf(db, [row]))[0]!;
}

/**
 * Changes the given fields. A new limit judges the current period again: a budget no longer
 * reached is `ok` (and alerts again when it is reached again), thresholds above its new
 * percentage may alert again. `{}` changes nothing.
 */
export async function updateBudget(db: Db, actor: Owner, id: string, input: UpdateInput, now = new Date()): Promise<BudgetView> {
  if (Object.values(input).every((v) => v === undefined)) return getBudget(db, actor, id);
  if (!isId('bdg', id)) throw notFound('budget', id);
  return transaction(db, async (tx) => {
    const changes: Partial<typeof budgets.$inferInsert> = { updatedAt: now };
    if (input.name !== undefined) changes.name = input.name;
    if (input.action !== undefined) changes.action = input.action;
    if (input.metadata !== undefined) changes.metadata = input.metadata;
    if (input.alertAt !== undefined) changes.alertAt = [...input.alertAt].sort((a, b) => a - b);
    if (input.limit !== undefined) {
      changes.limitUsd = 'usd' in input.limit ? input.limit.usd : null;
      changes.limitTokens = 'tokens' in input.limit ? input.limit.tokens : null;
    }
    const [before] = await tx.select().from(budgets).where(owned(actor, id)).for('update');
    if (!before) throw notFound('budget', id);
    const [row] = await tx.update(budgets).set(changes).where(owned(actor, id)).returning();
    if (!row) throw notFound('budget', id);
    if (input.limit !== undefined || input.alertAt !== undefined) {
      await tx.execute(sql`update budget_spend s set
          alerted = array(select t from unnest(s.alerted) t where t <= coalesce(${percentOf}, 0)),
          exceeded_at = case when ${input.limit === undefined} or (coalesce(s.cost_usd, 0) >= b.limit_usd or coalesce(s.tokens, 0) >= b.limit_tokens) then s.exceeded_at end
        from budgets b where b.id = ${id} and s.budget_id = b.id and s.period_start = ${periodStartOf('b')}`);
    }
    const [was, view] = await budgetViewsOf(tx, [before, row]);
    await audit(tx, actor, { action: 'budget.updated', target: { type: 'budget', id }, changes: changesOf(was!, view!, BUDGET_AUDITED) });
    return view!;
  });
}

export async function deleteBudget(db: Db, actor: Owner, id: string): Promise<{ id: string; deleted: true }> {
  if (!isId('bdg', id)) throw notFound('budget', id);
  return transaction(db, async (tx) => {
    const [row] = await tx.delete(budgets).where(owned(actor, id)).returning({ id: budgets.id, name: budgets.name });
    if (!row) throw notFound('budget', id);
    await audit(tx, actor, { action: 'budget.deleted', target: { type: 'budget', id }, changes: { name: [row.name, null] } });
    return { id, deleted: true as const };
  });
}
