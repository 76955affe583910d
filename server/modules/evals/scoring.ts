import type { Db } from '../../../db/client';
import { queryRows, textArray } from '../../../db/rows';
import { isUniqueViolation } from '../../../db/errors';
import { sql } from 'drizzle-orm';
import type { StoredScore } from '../../../db/schema';
import { newId } from '../../platform/ids';
import { judgePrompt, startJudge, unstartedJudge, verdictOf } from './judge';
import type { RecordedRun } from './run-record';
import type { Scorer } from './scorer-schemas';
import { scoreRun } from './scorers';

// Scoring one ended run with a list of scorers, shared by experiments (driver.ts) and online
// rules (online.ts), in two halves: the deterministic scorers at once, and the LLM judges as
// executions of their own. `startJudges` hands out each judge's execution id before it starts it,
// so the caller can write the ids first (a driver that takes over after a crash starts a missing
// one under the same id: it never runs twice); `judged` reads their verdicts once they ended.

type Judge = Extract<Scorer, { type: 'llm_judge' }>;
type Owner = { workspaceId: string; environment: 'live' | 'test' };

const isJudge = (s: Scorer): s is Judge => s.type === 'llm_judge';
export const judgesOf = (scorers: Scorer[]): Judge[] => scorers.filter(isJudge);

/** The deterministic scorers' verdicts (the judges' come later). */
export async function scoreNow(scorers: Scorer[], run: RecordedRun, expected: unknown, owner: string): Promise<Record<string, StoredScore>> {
  const scores: Record<string, StoredScore> = {};
  for (const s of scorers) if (!isJudge(s)) scores[s.name] = await scoreRun(s, run, expected, owner);
  return scores;
}

/** An id for each judge of the list, by scorer name. */
export const judgeIds = (scorers: Scorer[]): Record<string, string> => Object.fromEntries(judgesOf(scorers).map((j) => [j.name, newId('exe')]));

/** Whether a judge is worth running: a run cancelled or lost gave no answer of the agent's to judge. */
export const judgeable = (run: RecordedRun) => !(run.status === 'cancelled' || run.error?.code === 'worker_lost');

/**
 * Starts the judges whose ids are given and whose executions do not exist yet. A judge that
 * cannot start (a budget refused it, its agent could not be made) is returned with its score.
 */
export async function startJudges(
  db: Db,
  owner: Owner,
  scorers: Scorer[],
  ids: Record<string, string>,
  run: RecordedRun & { id: string; input: string; expected: unknown },
  ctx: { experimentId?: string; ruleId?: string; keyId?: string | null },
): Promise<Record<string, StoredScore>> {
  const existing = new Set((await queryRows<{ id: string }>(db, sql`select id from executions where id = any(${textArray(Object.values(ids))})`)).map((r) => r.id));
  const failed: Record<string, StoredScore> = {};
  for (const judge of judgesOf(scorers)) {
    const id = ids[judge.name];
    if (!id || existing.has(id)) continue;
    try {
      await startJudge(db, owner, judge, judgePrompt(judge, run, run.input, run.expected), { id, judged: run.id, ...ctx });
    } catch (err) {
      // Another worker started it under the same id meanwhile: it runs once, and its verdict counts.
      if (!isUniqueViolation(err)) failed[judge.name] = unstartedJudge(err);
    }
  }
  return failed;
}

interface JudgeRow {
  id: string;
  status: string;
  output_json: unknown;
  error_code: string | null;
}

/** The judges' verdicts once every one ended; null while one is still running. */
export async function judged(db: Db, scorers: Scorer[], ids: Record<string, string>, already: Record<string, StoredScore>): Promise<Record<string, StoredScore> | null> {
  const rows = await queryRows<JudgeRow>(db, sql`select id, status, output_json, error_code from executions where id = any(${textArray(Object.values(ids))})`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const verdicts: Record<string, StoredScore> = {};
  for (const judge of judgesOf(scorers)) {
    if (already[judge.name]) continue;
    const row = byId.get(ids[judge.name] ?? '');
    if (row && !['succeeded', 'failed', 'cancelled'].includes(row.status)) return null;
    const outputJson = typeof row?.output_json === 'string' ? JSON.parse(row.output_json) : row?.output_json;
    verdicts[judge.name] = verdictOf(judge, row ? { status: row.status, outputJson, errorCode: row.error_code } : undefined);
  }
  return verdicts;
}

/** What judges say of a run that gave no answer of the agent's: nothing (null), never 0. */
export const noJudgement = (scorers: Scorer[], why: string): Record<string, StoredScore> =>
  Object.fromEntries(judgesOf(scorers).map((j) => [j.name, { score: null, pass: null, reason: why }]));
