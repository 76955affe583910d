import { and, asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { evalRules } from '../../../db/schema';
import { transaction } from '../../../db/transaction';
import { advisoryXactLock } from '../../../db/advisory';
import type { Actor } from '../actor';
import { findAgent } from '../agents/service';
import { audit, changesOf } from '../audit/record';
import { ApiError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { checkScorers, namedScorers, type ParsedScorer, type Scorer } from './scorer-schemas';
import { MAX_RULES, type alertBelowSchema, type createRuleInput, type ruleSchema, type updateRuleInput } from './rule-schemas';

// An agent's online scoring rules (docs/evals.md, "Online scoring"): create, list, change, delete.
// Sampling is the evals participant's (participant.ts), scoring and alerts online.ts's.

export type RuleView = z.infer<typeof ruleSchema>;
type RuleRow = typeof evalRules.$inferSelect;
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;
type AlertBelow = z.infer<typeof alertBelowSchema>;

/** The moving mean of a rule's alert scorer over its last `window` scored runs (null before any). */
export async function movingMean(db: Db, rule: Pick<RuleRow, 'id' | 'alertBelow'>): Promise<{ mean: number | null; n: number }> {
  if (!rule.alertBelow) return { mean: null, n: 0 };
  const { scorer, window } = rule.alertBelow;
  const [row] = await queryRows<{ mean: number | null; n: number }>(
    db,
    sql`select avg(s)::float8 as mean, count(*)::int as n from (
          select (scores -> ${scorer} ->> 'score')::float8 as s from online_scores
          where rule_id = ${rule.id} and scored_at is not null and scores -> ${scorer} ->> 'score' is not null
          order by scored_at desc limit ${window}) x`,
  );
  return { mean: row?.mean === null || row?.mean === undefined ? null : Number(row.mean), n: row?.n ?? 0 };
}

export async function ruleView(db: Db, row: RuleRow): Promise<RuleView> {
  const { mean } = await movingMean(db, row);
  return {
    id: row.id,
    agentId: row.agentId,
    scorers: row.scorers,
    sampleRate: row.sampleRate,
    alertBelow: row.alertBelow,
    alerting: row.alerting,
    movingMean: mean === null ? null : Math.round(mean * 10_000) / 10_000,
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function ownAgent(db: Db, owner: Owner, id: string): Promise<string> {
  const agent = await findAgent(db, owner, id);
  if (!agent || agent.deletedAt) throw notFound('agent', id);
  return agent.id;
}

/** The scorers named and checked, and the alert naming one of them. */
async function checked(owner: Owner, scorers: ParsedScorer[], alert: AlertBelow | null | undefined): Promise<Scorer[]> {
  const named = namedScorers(scorers);
  await checkScorers(owner.workspaceId, named);
  if (alert && !named.some((s) => s.name.toLowerCase() === alert.scorer.toLowerCase())) {
    throw new ApiError('invalid_parameter', `'alertBelow.scorer' names no scorer of the rule ('${alert.scorer.slice(0, 64)}')`, { param: 'alertBelow.scorer' });
  }
  return named;
}

const canonicalAlert = (alert: AlertBelow | null | undefined, scorers: Scorer[]): AlertBelow | null =>
  alert ? { ...alert, scorer: scorers.find((s) => s.name.toLowerCase() === alert.scorer.toLowerCase())!.name } : null;

const owned = (owner: Owner, agentId: string, ruleId: string) =>
  and(eq(evalRules.id, ruleId), eq(evalRules.agentId, agentId), eq(evalRules.workspaceId, owner.workspaceId), eq(evalRules.environment, owner.environment));

export async function createRule(db: Db, actor: Actor, input: z.infer<typeof createRuleInput>): Promise<RuleView> {
  const agentId = await ownAgent(db, actor, input.id);
  const scorers = await checked(actor, input.scorers, input.alertBelow);
  return transaction(db, async (tx) => {
    await advisoryXactLock(tx, sql`hashtext(${`eval_rules:${agentId}`})`);
    const [count] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from eval_rules where agent_id = ${agentId}`);
    if (count!.n >= MAX_RULES) throw new ApiError('invalid_parameter', `The agent already has ${MAX_RULES} scoring rules, the most it may have; delete one first`, { param: 'id' });
    const [row] = await tx
      .insert(evalRules)
      .values({
        id: newId('evr'),
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        agentId,
        scorers: scorers as unknown as Record<string, unknown>[],
        sampleRate: input.sampleRate,
        alertBelow: canonicalAlert(input.alertBelow, scorers),
      })
      .returning();
    const view = await ruleView(tx, row!);
    await audit(tx, actor, { action: 'eval_rule.created', target: { type: 'eval_rule', id: view.id }, changes: changesOf(null, view, ['agentId', 'scorers', 'sampleRate', 'alertBelow']) });
    return view;
  });
}

export async function listRules(db: Db, owner: Owner, agentId: string): Promise<{ data: RuleView[]; hasMore: false }> {
  const id = await ownAgent(db, owner, agentId);
  const rows = await db.select().from(evalRules).where(and(eq(evalRules.agentId, id), eq(evalRules.workspaceId, owner.workspaceId), eq(evalRules.environment, owner.environment))).orderBy(asc(evalRules.id));
  return { data: await Promise.all(rows.map((r) => ruleView(db, r))), hasMore: false };
}

export async function updateRule(db: Db, actor: Actor, input: z.infer<typeof updateRuleInput>): Promise<RuleView> {
  const agentId = await ownAgent(db, actor, input.id);
  if (!isId('evr', input.ruleId)) throw notFound('eval rule', input.ruleId);
  return transaction(db, async (tx) => {
    const [before] = await tx.select().from(evalRules).where(owned(actor, agentId, input.ruleId)).for('update');
    if (!before) throw notFound('eval rule', input.ruleId);
    const scorers = await checked(actor, input.scorers ?? (before.scorers as unknown as ParsedScorer[]), input.alertBelow === undefined ? before.alertBelow : input.alertBelow);
    const alertBelow = input.alertBelow === undefined ? before.alertBelow : canonicalAlert(input.alertBelow, scorers);
    const [row] = await tx
      .update(evalRules)
      .set({
        scorers: scorers as unknown as Record<string, unknown>[],
        ...(input.sampleRate !== undefined ? { sampleRate: input.sampleRate } : {}),
        alertBelow,
        // A new line or scorer starts the alert afresh.
        ...(input.alertBelow !== undefined ? { alerting: false } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(evalRules.id, before.id))
      .returning();
    const [was, view] = [await ruleView(tx, before), await ruleView(tx, row!)];
    await audit(tx, actor, { action: 'eval_rule.updated', target: { type: 'eval_rule', id: before.id }, changes: changesOf(was, view, ['scorers', 'sampleRate', 'alertBelow']) });
    return view;
  });
}

export async function deleteRule(db: Db, actor: Actor, agentId: string, ruleId: string): Promise<{ id: string; deleted: true }> {
  const id = await ownAgent(db, actor, agentId);
  if (!isId('evr', ruleId)) throw notFound('eval rule', ruleId);
  return transaction(db, async (tx) => {
    const [row] = await tx.delete(evalRules).where(owned(actor, id, ruleId)).returning({ id: evalRules.id });
    if (!row) throw notFound('eval rule', ruleId);
    await audit(tx, actor, { action: 'eval_rule.deleted', target: { type: 'eval_rule', id: ruleId }, changes: { agentId: [id, null] } });
    return { id: ruleId, deleted: true as const };
  });
}
