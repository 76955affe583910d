import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { queryRows, textArray } from '../../../db/rows';
import { agents, agentVersions, datasets, experimentRuns, experiments, type StoredScore } from '../../../db/schema';
import { transaction } from '../../../db/transaction';
import { advisoryXactLock } from '../../../db/advisory';
import type { Actor } from '../actor';
import { audit } from '../audit/record';
import { emit } from '../events/emit';
import { ApiError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { keysetList } from '../../platform/keyset';
import { CHANNELS, notify } from '../../platform/notify';
import type { Page, PageParams } from '../../platform/pagination';
import { MAX_ACTIVE_EXPERIMENTS, type createExperimentInput, type experimentResultListSchema, type experimentSchema, type listExperimentsInput } from './experiment-schemas';
import { checkScorers, namedScorers, type Scorer } from './scorer-schemas';
import { itemChange } from './stats';

// Experiments (docs/evals.md, "Experiments"): create (the version resolved and the dataset's
// items copied, item × trial, in one transaction), read, list, cancel, and the results by item.
// Running them is the driver's (driver.ts), in the worker processes.

export type ExperimentView = z.infer<typeof experimentSchema>;
type ExperimentRow = typeof experiments.$inferSelect;
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;

export const FINAL_EXPERIMENT = ['succeeded', 'failed', 'cancelled'] as const;

export const experimentView = (row: ExperimentRow): ExperimentView => ({
  id: row.id,
  name: row.name,
  agentId: row.agentId,
  agentVersion: row.agentVersion,
  label: row.label,
  datasetId: row.datasetId,
  scorers: row.scorers,
  trials: row.trials,
  concurrency: row.concurrency,
  baselineExperimentId: row.baselineExperimentId,
  status: row.status,
  progress: { done: row.done, total: row.total },
  summary: (row.summary as ExperimentView['summary']) ?? null,
  comparison: (row.comparison as ExperimentView['comparison']) ?? null,
  error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
  environment: row.environment,
  createdAt: row.createdAt.toISOString(),
  startedAt: row.startedAt?.toISOString() ?? null,
  completedAt: row.completedAt?.toISOString() ?? null,
});

const experimentList = keysetList({
  name: 'experiments',
  prefix: 'exp',
  table: experiments,
  columns: getTableColumns(experiments),
  filters: { agentId: experiments.agentId, datasetId: experiments.datasetId },
});

export const ownedExperiment = (owner: Owner, id: string) => and(eq(experiments.id, id), eq(experiments.workspaceId, owner.workspaceId), eq(experiments.environment, owner.environment));

/** The version to run: the one asked for, the one `label` points at, else `production`'s (a 400 naming what is unknown). */
async function resolveVersion(tx: Db, agent: typeof agents.$inferSelect, input: { version?: number; label?: string }): Promise<number> {
  if (input.version !== undefined && input.label !== undefined) throw new ApiError('parameter_conflict', "Pass either 'version' or 'label', not both", { param: 'label' });
  if (input.version !== undefined) {
    if (input.version === agent.version) return agent.version;
    const [found] = await tx.select({ v: agentVersions.version }).from(agentVersions).where(and(eq(agentVersions.agentId, agent.id), eq(agentVersions.version, input.version)));
    if (!found) throw new ApiError('invalid_parameter', `The agent has no version ${input.version} (its latest is ${agent.version})`, { param: 'version' });
    return input.version;
  }
  const label = input.label ?? 'production';
  if (!Object.hasOwn(agent.labels, label)) throw new ApiError('invalid_parameter', `The agent has no label '${label}'`, { param: 'label' });
  return agent.labels[label] ?? agent.version;
}

export async function createExperiment(db: Db, actor: Actor, input: z.infer<typeof createExperimentInput>): Promise<ExperimentView> {
  const scorers: Scorer[] = namedScorers(input.scorers);
  await checkScorers(actor.workspaceId, scorers);
  if (!isId('agt', input.agentId)) throw new ApiError('resource_not_found', `No such agent: '${input.agentId.slice(0, 64)}'`, { param: 'agentId' });
  if (!isId('dst', input.datasetId)) throw new ApiError('resource_not_found', `No such dataset: '${input.datasetId.slice(0, 64)}'`, { param: 'datasetId' });
  const view = await transaction(db, async (tx) => {
    // A bound on what one workspace holds of the workers' time: 10 experiments going at once (a count and an insert as one step).
    await advisoryXactLock(tx, sql`hashtext(${`experiments:${actor.workspaceId}:${actor.environment}`})`);
    const [active] = await queryRows<{ n: number }>(
      tx,
      sql`select count(*)::int as n from experiments where workspace_id = ${actor.workspaceId} and environment = ${actor.environment} and status in ('queued', 'running')`,
    );
    if (active!.n >= MAX_ACTIVE_EXPERIMENTS) {
      throw new ApiError('experiment_limit_reached', `This environment already has ${MAX_ACTIVE_EXPERIMENTS} experiments queued or running, the most a workspace may have at once; wait for one to end or cancel one`);
    }
    const [agent] = await tx
      .select()
      .from(agents)
      .where(and(eq(agents.id, input.agentId), eq(agents.workspaceId, actor.workspaceId), eq(agents.environment, actor.environment), sql`${agents.deletedAt} is null`));
    if (!agent) throw new ApiError('resource_not_found', `No such agent: '${input.agentId}'`, { param: 'agentId' });
    const version = await resolveVersion(tx, agent, input);
    // Share-locked: the dataset's items cannot change while they are copied.
    const [dataset] = await tx
      .select()
      .from(datasets)
      .where(and(eq(datasets.id, input.datasetId), eq(datasets.workspaceId, actor.workspaceId), eq(datasets.environment, actor.environment)))
      .for('share');
    if (!dataset) throw new ApiError('resource_not_found', `No such dataset: '${input.datasetId}'`, { param: 'datasetId' });
    if (dataset.itemCount === 0) throw new ApiError('invalid_parameter', 'The dataset has no items yet; add some first', { param: 'datasetId' });
    if (input.baselineExperimentId !== undefined) {
      const [base] = isId('exp', input.baselineExperimentId) ? await tx.select({ id: experiments.id }).from(experiments).where(ownedExperiment(actor, input.baselineExperimentId)) : [];
      if (!base) throw new ApiError('resource_not_found', `No such experiment: '${input.baselineExperimentId.slice(0, 64)}'`, { param: 'baselineExperimentId' });
    }
    const id = newId('exp');
    const [row] = await tx
      .insert(experiments)
      .values({
        id,
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        name: input.name ?? `${dataset.name} · v${version}`,
        agentId: agent.id,
        agentVersion: version,
        label: input.label ?? null,
        datasetId: dataset.id,
        scorers: scorers as unknown as Record<string, unknown>[],
        trials: input.trials,
        concurrency: input.concurrency,
        baselineExperimentId: input.baselineExperimentId ?? null,
        total: dataset.itemCount * input.trials,
        keyId: actor.kind === 'key' ? actor.keyId : null,
      })
      .returning();
    // The items as they are now, item × trial, in the dataset's order (oldest first).
    await tx.execute(sql`insert into experiment_runs (experiment_id, position, trial, item_id, input, expected)
      select ${id}, i.position, t.trial, i.id, i.input, i.expected
      from (select id, input, expected, row_number() over (order by id)::int as position from dataset_items where dataset_id = ${dataset.id}) i
      cross join generate_series(1, ${input.trials}::int) as t(trial)`);
    await tx.execute(notify(CHANNELS.evals, id));
    const made = experimentView(row!);
    await audit(tx, actor, { action: 'experiment.created', target: { type: 'experiment', id }, changes: { name: [null, made.name], agentVersion: [null, version], datasetId: [null, dataset.id] } });
    return made;
  });
  return view;
}

export async function listExperiments(db: Db, owner: Owner, params: PageParams & Omit<z.infer<typeof listExperimentsInput>, keyof PageParams>): Promise<Page<ExperimentView>> {
  const page = await experimentList.page(db, owner, params);
  return { ...page, data: (page.data as ExperimentRow[]).map(experimentView) };
}

export async function findExperiment(db: Db, owner: Owner, id: string): Promise<ExperimentRow> {
  if (!isId('exp', id)) throw notFound('experiment', id);
  const [row] = await db.select().from(experiments).where(ownedExperiment(owner, id));
  if (!row) throw notFound('experiment', id);
  return row;
}

export const getExperiment = async (db: Db, owner: Owner, id: string): Promise<ExperimentView> => experimentView(await findExperiment(db, owner, id));

/**
 * Cancels it: no run starts from now on, the runs under way are cancelled (their executions, as a
 * cancel of each would), what was scored keeps its scores and the summary counts it.
 */
export async function cancelExperiment(db: Db, actor: Actor, id: string, cancelRuns: (ids: string[]) => Promise<void>): Promise<ExperimentView> {
  if (!isId('exp', id)) throw notFound('experiment', id);
  const { row, running } = await transaction(db, async (tx) => {
    const [before] = await tx.select().from(experiments).where(ownedExperiment(actor, id)).for('update');
    if (!before) throw notFound('experiment', id);
    if ((FINAL_EXPERIMENT as readonly string[]).includes(before.status)) {
      throw new ApiError('experiment_not_cancellable', `This experiment has already ended (status '${before.status}') and cannot be cancelled`);
    }
    const runs = await tx
      .update(experimentRuns)
      .set({ state: 'skipped' })
      .where(and(eq(experimentRuns.experimentId, id), inArray(experimentRuns.state, ['pending', 'running', 'judging'])))
      .returning({ executionId: experimentRuns.executionId, judges: experimentRuns.judges });
    const [row] = await tx.update(experiments).set({ status: 'cancelled', completedAt: sql`now()`, leasedBy: null, leaseUntil: null }).where(eq(experiments.id, id)).returning();
    await audit(tx, actor, { action: 'experiment.cancelled', target: { type: 'experiment', id }, changes: { status: [before.status, 'cancelled'] } });
    await tx.execute(notify(CHANNELS.evals, id));
    const running = runs.flatMap((r) => [r.executionId, ...Object.values(r.judges ?? {})]).filter((x): x is string => x !== null);
    return { row: row!, running };
  });
  await cancelRuns(running);
  return experimentView(row);
}

/** Sends `experiment.completed` for a just-ended experiment, in `tx`. */
export const emitCompleted = (tx: Db, row: ExperimentRow) => emit(tx, row, 'experiment.completed', experimentView(row));

// ---- results ----

interface RunRow {
  position: number;
  trial: number;
  item_id: string;
  input: string;
  expected: unknown;
  execution_id: string | null;
  output: unknown;
  scores: Record<string, StoredScore> | null;
}

type ResultView = z.infer<typeof experimentResultListSchema>['data'][number];

/** An item's trials folded into one result: per scorer, the mean of its trials' scores, and whether every scored trial passed. */
export function foldItem(runs: RunRow[], scorerNames: string[]): Omit<ResultView, 'change'> & { mean: number | null } {
  const first = runs[0]!;
  const scores: ResultView['scores'] = {};
  const means: number[] = [];
  for (const name of scorerNames) {
    const got = runs.map((r) => r.scores?.[name]).filter((s): s is StoredScore => s !== undefined);
    const scored = got.filter((s) => s.score !== null);
    const mean = scored.length > 0 ? scored.reduce((a, s) => a + s.score!, 0) / scored.length : null;
    if (mean !== null) means.push(mean);
    const passes = scored.map((s) => s.pass);
    scores[name] = { mean, pass: scored.length > 0 ? passes.every((p) => p === true) : null, reason: got[0]?.reason ?? 'not scored yet' };
  }
  return {
    itemId: first.item_id,
    input: first.input,
    expected: first.expected ?? null,
    executionIds: runs.map((r) => r.execution_id).filter((x): x is string => x !== null),
    outputs: runs.map((r) => r.output ?? null),
    scores,
    mean: means.length > 0 ? means.reduce((a, b) => a + b, 0) / means.length : null,
  };
}

async function runsOf(db: Db, experimentId: string, fromPosition: number, items: number, itemIds?: string[]): Promise<RunRow[]> {
  const which = itemIds ? sql`and item_id = any(${textArray(itemIds)})` : sql`and position > ${fromPosition} and position <= ${fromPosition + items}`;
  return queryRows<RunRow>(
    db,
    sql`select position, trial, item_id, input, expected, execution_id, output, scores from experiment_runs
        where experiment_id = ${experimentId} ${which} order by position, trial`,
  );
}

const groupByItem = (runs: RunRow[]) => {
  const items = new Map<string, RunRow[]>();
  for (const r of runs) items.set(r.item_id, [...(items.get(r.item_id) ?? []), r]);
  return items;
};

/** The results by item, in the dataset's order: a page of `limit` items after the cursor (an item's position). */
export async function listResults(db: Db, owner: Owner, id: string, page: { limit?: number; after?: string }): Promise<z.infer<typeof experimentResultListSchema>> {
  const row = await findExperiment(db, owner, id);
  const limit = page.limit ?? 20;
  const from = page.after === undefined ? 0 : Number(page.after);
  if (!Number.isSafeInteger(from) || from < 0) throw new ApiError('invalid_cursor', 'The cursor is not one this list gave', { param: 'after' });
  const names = (row.scorers as unknown as Scorer[]).map((s) => s.name);
  const runs = await runsOf(db, id, from, limit + 1);
  const positions = [...new Set(runs.map((r) => r.position))];
  const more = positions.length > limit;
  const kept = runs.filter((r) => r.position <= from + limit);
  const items = [...groupByItem(kept).values()].map((rs) => foldItem(rs, names));
  let baseline = new Map<string, number | null>();
  if (row.baselineExperimentId) {
    const [base] = await db.select({ scorers: experiments.scorers }).from(experiments).where(eq(experiments.id, row.baselineExperimentId));
    const shared = base ? (base.scorers as unknown as Scorer[]).map((s) => s.name).filter((n) => names.includes(n)) : [];
    if (shared.length > 0 && items.length > 0) {
      const baseRuns = await runsOf(db, row.baselineExperimentId, 0, 0, items.map((i) => i.itemId));
      baseline = new Map([...groupByItem(baseRuns)].map(([itemId, rs]) => [itemId, foldItem(rs, shared).mean]));
      for (const item of items) item.mean = foldItem(kept.filter((r) => r.item_id === item.itemId), shared).mean;
    }
  }
  const data = items.map(({ mean, ...item }) => ({ ...item, change: row.baselineExperimentId ? itemChange(mean, baseline.get(item.itemId) ?? null) : null }));
  return { data, hasMore: more, ...(more ? { nextCursor: String(from + limit) } : {}) };
}
