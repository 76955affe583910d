import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { intArray, queryRows, textArray } from '../../../db/rows';
import { experiments, type StoredScore } from '../../../db/schema';
import { transaction } from '../../../db/transaction';
import { isUniqueViolation } from '../../../db/errors';
import { startExecution } from '../executions/service';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { log } from '../../platform/log';
import { emitCompleted } from './experiments';
import { recordedRun, RUN_COLUMNS, shownOutput, type RunColumns } from './run-record';
import type { Scorer } from './scorer-schemas';
import { judgeable, judged, judgeIds, judgesOf, noJudgement, scoreNow, startJudges } from './scoring';
import { summarizeExperiment } from './summary';

// The experiment driver (docs/evals.md, "Experiments"), in every worker process. One process at
// a time drives an experiment: it holds the experiment's lease (`leased_by`, `lease_until`,
// renewed at each step) and another takes over once it lapses (a killed worker's experiment
// goes on within LEASE_MS). A step:
//   1. scores the runs whose executions ended (the deterministic scorers at once; the judges as
//      executions, their ids written on the run first);
//   2. starts pending runs up to the experiment's concurrency: each run's execution id is
//      written on it (`running`) before the execution is created with that id, so a driver that
//      dies in between leaves a run whose execution the next one creates under the same id — an
//      item never runs twice;
//   3. when nothing is left, writes the summary and `experiment.completed` in one transaction.
// Executions are queued: the workers' fair claim runs them within the workspace's concurrency
// limit and budgets, like any run. A step runs when an experiment's run ends (the evals
// participant's signal), when it is created or cancelled, and every SWEEP_MS for the rest.

export const LEASE_MS = 15_000;
/** A driver's id: this process, for as long as it runs. */
export const DRIVER_ID = `drv_${randomUUID()}`;

type ExperimentRow = typeof experiments.$inferSelect;
type Owner = { workspaceId: string; environment: 'live' | 'test' };

interface RunRow extends RunColumns {
  position: number;
  trial: number;
  input: string;
  expected: unknown;
  state: 'running' | 'judging';
  execution_id: string;
  judges: Record<string, string> | null;
  scores: Record<string, StoredScore> | null;
}

/** Takes (or renews) the lease and moves a queued experiment to running; null when another process holds it or it ended. */
async function lease(db: Db, id: string): Promise<ExperimentRow | null> {
  const [row] = await db
    .update(experiments)
    .set({
      leasedBy: DRIVER_ID,
      leaseUntil: sql`now() + ${`${LEASE_MS} milliseconds`}::interval`,
      status: sql`case when ${experiments.status} = 'queued' then 'running' else ${experiments.status} end`,
      startedAt: sql`coalesce(${experiments.startedAt}, now())`,
    })
    .where(
      and(
        eq(experiments.id, id),
        sql`${experiments.status} in ('queued', 'running')`,
        sql`(${experiments.leasedBy} is null or ${experiments.leasedBy} = ${DRIVER_ID} or ${experiments.leaseUntil} < now())`,
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * Moves a run on from state `from` (a conditional update: a step that lost its lease changes
 * nothing): its scores, judges and output, its new state. Once scored, the scores are on its
 * execution too (docs/evals.md).
 */
async function setRun(
  db: Db,
  id: string,
  r: { position: number; trial: number; execution_id: string },
  fields: { scores?: Record<string, StoredScore>; judges?: Record<string, string>; output?: unknown; state?: 'judging' | 'scored' },
  from: 'running' | 'judging',
): Promise<void> {
  const json = (v: unknown) => sql`${JSON.stringify(v ?? null)}::jsonb`;
  const sets = [
    ...(fields.scores !== undefined ? [sql`scores = ${json(fields.scores)}`] : []),
    ...(fields.judges !== undefined ? [sql`judges = ${json(fields.judges)}`] : []),
    ...(fields.output !== undefined ? [sql`output = ${json(fields.output)}`] : []),
    sql`state = ${fields.state ?? from}`,
  ];
  const moved = await queryRows(
    db,
    sql`update experiment_runs set ${sql.join(sets, sql`, `)} where experiment_id = ${id} and position = ${r.position} and trial = ${r.trial} and state = ${from} returning 1`,
  );
  if (moved.length > 0 && fields.state === 'scored' && fields.scores) {
    await db.execute(sql`update executions set scores = coalesce(scores, '{}'::jsonb) || ${json(fields.scores)} where id = ${r.execution_id}`);
  }
}

/** Step 1: the runs whose executions ended (or whose judges did), scored. */
async function scoreEnded(db: Db, exp: ExperimentRow, scorers: Scorer[]): Promise<void> {
  const owner: Owner = exp;
  const rows = await queryRows<RunRow>(
    db,
    sql`select r.position, r.trial, r.input, r.expected, r.state, r.execution_id, r.judges, r.scores, ${RUN_COLUMNS}
        from experiment_runs r left join executions e on e.id = r.execution_id
        where r.experiment_id = ${exp.id} and r.state in ('running', 'judging') and (e.id is null or e.status in ('succeeded', 'failed', 'cancelled'))`,
  );
  for (const r of rows) {
    if (r.run_id === null) {
      // Its driver died between writing the id and creating the execution: create it now, under that id.
      await startItem(db, exp, r.execution_id, r.input);
      continue;
    }
    const run = recordedRun(r);
    const ctx = { experimentId: exp.id, keyId: exp.keyId };
    if (r.state === 'running') {
      const scores = await scoreNow(scorers, run, r.expected, exp.workspaceId);
      const judges = judgesOf(scorers);
      if (judges.length === 0 || !judgeable(run)) {
        await setRun(db, exp.id, r, { scores: { ...scores, ...noJudgement(scorers, 'the run gave no answer to judge') }, output: shownOutput(run), state: 'scored' }, 'running');
        continue;
      }
      const ids = judgeIds(scorers);
      await setRun(db, exp.id, r, { scores, judges: ids, output: shownOutput(run), state: 'judging' }, 'running');
      const failed = await startJudges(db, owner, scorers, ids, { ...run, id: r.execution_id, input: r.input, expected: r.expected }, ctx);
      if (Object.keys(failed).length > 0) await setRun(db, exp.id, r, { scores: { ...scores, ...failed } }, 'judging');
      continue;
    }
    // Judging: start any judge a dead driver did not, then read the verdicts once all ended.
    const ids = r.judges ?? {};
    const failed = await startJudges(db, owner, scorers, ids, { ...run, id: r.execution_id, input: r.input, expected: r.expected }, ctx);
    const verdicts = await judged(db, scorers, ids, { ...(r.scores ?? {}), ...failed });
    if (verdicts) await setRun(db, exp.id, r, { scores: { ...(r.scores ?? {}), ...failed, ...verdicts }, state: 'scored' }, 'judging');
  }
}

/** Creates an item's execution under the id written on it (queued: the workers' fair claim runs it). */
async function startItem(db: Db, exp: ExperimentRow, id: string, input: string): Promise<void> {
  try {
    await startExecution(db, exp, exp.agentId, { input, version: exp.agentVersion }, { id, trigger: { type: 'experiment', experimentId: exp.id }, ...(exp.keyId ? { keyId: exp.keyId } : {}) });
  } catch (err) {
    if (err instanceof ApiError) {
      await fail(db, exp, err);
      return;
    }
    // Created already under this id (another driver after a lapsed lease): it ran, or runs.
    if (isUniqueViolation(err)) return;
    throw err;
  }
}

/** Step 2: pending runs started, up to the concurrency. */
async function startPending(db: Db, exp: ExperimentRow): Promise<void> {
  const [{ inflight }] = (await queryRows<{ inflight: number }>(
    db,
    sql`select count(*)::int as inflight from experiment_runs where experiment_id = ${exp.id} and state in ('running', 'judging')`,
  )) as [{ inflight: number }];
  const free = exp.concurrency - inflight;
  if (free <= 0) return;
  // The ids are written first (one statement), the executions created after.
  const pending = await queryRows<{ position: number; trial: number }>(
    db,
    sql`select position, trial from experiment_runs where experiment_id = ${exp.id} and state = 'pending' order by position, trial limit ${free}`,
  );
  if (pending.length === 0) return;
  const ids = pending.map(() => newId('exe'));
  const started = await queryRows<{ position: number; trial: number; input: string; execution_id: string }>(
    db,
    sql`update experiment_runs r set state = 'running', execution_id = x.id
        from unnest(${intArray(pending.map((p) => p.position))}, ${intArray(pending.map((p) => p.trial))}, ${textArray(ids)}) as x(position, trial, id)
        where r.experiment_id = ${exp.id} and r.position = x.position and r.trial = x.trial and r.state = 'pending'
        returning r.position, r.trial, r.input, r.execution_id`,
  );
  for (const run of started.sort((a, b) => a.position - b.position || a.trial - b.trial)) {
    await startItem(db, exp, run.execution_id, run.input);
    const [still] = await db.select({ status: experiments.status }).from(experiments).where(eq(experiments.id, exp.id));
    if (still?.status !== 'running') return;
  }
}

/** Ends the experiment as failed (its agent was deleted, a budget refused a run…): nothing more starts. */
async function fail(db: Db, exp: ExperimentRow, err: ApiError): Promise<void> {
  await transaction(db, async (tx) => {
    await tx.execute(sql`update experiment_runs set state = 'skipped', execution_id = null
      where experiment_id = ${exp.id} and state in ('pending', 'running') and (execution_id is null or not exists (select 1 from executions e where e.id = experiment_runs.execution_id))`);
    const [row] = await tx
      .update(experiments)
      .set({ status: 'failed', errorCode: err.code, errorMessage: err.message.slice(0, 500), completedAt: sql`now()`, leasedBy: null, leaseUntil: null })
      .where(and(eq(experiments.id, exp.id), sql`${experiments.status} = 'running'`))
      .returning();
    if (row) {
      const done = await summarizeExperiment(tx, row);
      await emitCompleted(tx, done);
    }
  });
}

/** Step 3: progress, and the end once every run is scored or skipped. */
async function settle(db: Db, exp: ExperimentRow): Promise<void> {
  await transaction(db, async (tx) => {
    const [counts] = await queryRows<{ done: number; open: number }>(
      tx,
      sql`select count(*) filter (where state in ('scored', 'skipped'))::int as done, count(*) filter (where state not in ('scored', 'skipped'))::int as open
          from experiment_runs where experiment_id = ${exp.id}`,
    );
    const finished = counts!.open === 0;
    const [row] = await tx
      .update(experiments)
      .set({ done: counts!.done, ...(finished ? { status: 'succeeded', completedAt: sql`now()`, leasedBy: null, leaseUntil: null } : {}) })
      .where(and(eq(experiments.id, exp.id), sql`${experiments.status} = 'running'`))
      .returning();
    if (finished && row) await emitCompleted(tx, await summarizeExperiment(tx, row));
  });
}

/** One step of experiment `id`, if this process holds (or takes) its lease. */
export async function stepExperiment(db: Db, id: string): Promise<void> {
  const exp = await lease(db, id);
  if (!exp) return;
  const scorers = exp.scorers as unknown as Scorer[];
  await scoreEnded(db, exp, scorers);
  const [now] = await db.select({ status: experiments.status }).from(experiments).where(eq(experiments.id, id));
  if (now?.status !== 'running') return;
  await startPending(db, exp);
  await settle(db, exp);
}

/** The experiments a sweep looks at: not ended, and not held by a live lease of another process. */
export async function drivable(db: Db, limit = 50): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select id from experiments where status in ('queued', 'running')
          and (leased_by is null or leased_by = ${DRIVER_ID} or lease_until < now()) order by id limit ${limit}`,
  );
  return rows.map((r) => r.id);
}

export const logStepError = (id: string) => (err: unknown) => log.error({ err, experiment: id }, 'experiment step failed');
