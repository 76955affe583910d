import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { evalRules, type StoredScore } from '../../../db/schema';
import { transaction } from '../../../db/transaction';
import { emit } from '../events/emit';
import { recordedRun, RUN_COLUMNS, type RunColumns } from './run-record';
import { movingMean, ruleView } from './rules';
import type { Scorer } from './scorer-schemas';
import { judgeable, judged, judgeIds, judgesOf, noJudgement, scoreNow, startJudges } from './scoring';

// Online scoring (docs/evals.md, "Online scoring"): the runs a rule sampled (participant.ts) are
// scored here, in a worker, after they ended — never delaying them. Each is scored at most once
// whichever workers race for it: the judges' ids are claimed by a conditional update before they
// start, the scores written by one conditional on `scored_at is null`. The scores go on the
// execution (`scores`, beside any other rule's) and so on its trace; then the rule's moving mean
// is checked: `eval.score_dropped` once when it falls below the line (the rule's `alerting`
// claimed by a conditional update), and again only after it has recovered.

type RuleRow = typeof evalRules.$inferSelect;

interface Queued extends RunColumns {
  run_key: string | null;
  execution_id: string;
  input: string;
  judges: Record<string, string> | null;
  scores: Record<string, StoredScore> | null;
  workspace_id: string;
  environment: 'live' | 'test';
}

/** How many queued runs of one rule a step scores. */
const BATCH = 200;

/** One step of a rule: scores what it has queued (up to a batch); true when more is left. */
export async function stepRule(db: Db, ruleId: string): Promise<boolean> {
  const [rule] = await db.select().from(evalRules).where(eq(evalRules.id, ruleId));
  if (!rule) return false;
  const scorers = rule.scorers as unknown as Scorer[];
  const rows = await queryRows<Queued>(
    db,
    sql`select q.execution_id, q.judges, q.scores, e.input, e.workspace_id, e.environment, ${RUN_COLUMNS}
        from online_scores q join executions e on e.id = q.execution_id
        where q.rule_id = ${ruleId} and q.scored_at is null order by q.queued_at limit ${BATCH}`,
  );
  const done: Scored[] = [];
  for (const q of rows) {
    const scores = await scoreOne(db, rule, scorers, q);
    if (scores) done.push({ executionId: q.execution_id, scores });
  }
  await finish(db, rule, done);
  return rows.length === BATCH;
}

interface Scored {
  executionId: string;
  scores: Record<string, StoredScore>;
}

/** A queued run's scores when they are all in (null: its judges are still running, or another worker claimed them). */
async function scoreOne(db: Db, rule: RuleRow, scorers: Scorer[], q: Queued): Promise<Record<string, StoredScore> | null> {
  const run = recordedRun(q);
  const owner = { workspaceId: q.workspace_id, environment: q.environment };
  const target = { ...run, id: q.execution_id, input: q.input, expected: null };
  const ctx = { ruleId: rule.id, keyId: q.run_key ?? null };
  if (q.judges === null) {
    const scores = await scoreNow(scorers, run, null, q.workspace_id);
    if (judgesOf(scorers).length === 0 || !judgeable(run)) return { ...scores, ...noJudgement(scorers, 'the run gave no answer to judge') };
    const ids = judgeIds(scorers);
    const [claimed] = await queryRows(
      db,
      sql`update online_scores set judges = ${JSON.stringify(ids)}::jsonb, scores = ${JSON.stringify(scores)}::jsonb
          where rule_id = ${rule.id} and execution_id = ${q.execution_id} and judges is null returning 1`,
    );
    if (!claimed) return null;
    const failed = await startJudges(db, owner, scorers, ids, target, ctx);
    if (Object.keys(failed).length === 0) return null;
    const verdicts = await judged(db, scorers, ids, { ...scores, ...failed });
    return verdicts ? { ...scores, ...failed, ...verdicts } : null;
  }
  const failed = await startJudges(db, owner, scorers, q.judges, target, ctx);
  const already = { ...(q.scores ?? {}), ...failed };
  const verdicts = await judged(db, scorers, q.judges, already);
  return verdicts ? { ...already, ...verdicts } : null;
}

/**
 * Writes a batch's scores in one statement — each once, on its queue row (conditional on
 * `scored_at is null`: whichever workers race) and on its execution — then checks the rule's alert.
 */
async function finish(db: Db, rule: RuleRow, done: Scored[]): Promise<void> {
  if (done.length === 0) return;
  const batch = JSON.stringify(done.map((d) => ({ execution_id: d.executionId, scores: d.scores })));
  await transaction(db, async (tx) => {
    await tx.execute(sql`with x as (select * from json_to_recordset(${batch}::json) as x(execution_id text, scores jsonb)),
        won as (update online_scores q set scores = x.scores, scored_at = clock_timestamp() from x
                where q.rule_id = ${rule.id} and q.execution_id = x.execution_id and q.scored_at is null returning q.execution_id, x.scores)
      update executions e set scores = coalesce(e.scores, '{}'::jsonb) || won.scores from won where e.id = won.execution_id`);
    await checkAlert(tx, rule);
  });
}

/** `eval.score_dropped` once per drop: when the full window's mean is below the line and the rule was not alerting. */
async function checkAlert(tx: Db, rule: RuleRow): Promise<void> {
  if (!rule.alertBelow) return;
  const { mean, n } = await movingMean(tx, rule);
  if (mean === null || n < rule.alertBelow.window) return;
  const below = mean < rule.alertBelow.mean;
  const [flipped] = await tx
    .update(evalRules)
    .set({ alerting: below })
    .where(sql`${evalRules.id} = ${rule.id} and ${evalRules.alerting} = ${!below}`)
    .returning();
  if (flipped && below) await emit(tx, flipped, 'eval.score_dropped', { rule: await ruleView(tx, flipped), scorer: rule.alertBelow.scorer, movingMean: mean, window: n, below: rule.alertBelow.mean });
}

/** The rules with runs waiting to be scored (a sweep's). */
export async function rulesWithWork(db: Db, limit = 50): Promise<string[]> {
  const rows = await queryRows<{ rule_id: string }>(db, sql`select distinct rule_id from online_scores where scored_at is null limit ${limit}`);
  return rows.map((r) => r.rule_id);
}

/** Days a scored run stays in a rule's history (its moving mean reads the last `window` ≤ 1,000 of them). */
export const ONLINE_SCORE_RETENTION_DAYS = 30;

/** Deletes scored history past the retention (maintenance); returns how many rows went. */
export async function pruneOnlineScores(db: Db, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - ONLINE_SCORE_RETENTION_DAYS * 86_400_000).toISOString();
  const gone = await queryRows(db, sql`delete from online_scores where scored_at < ${before}::timestamptz returning 1`);
  return gone.length;
}
