import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { agents } from '../../../db/schema';
import { createAgentInput } from '../agents/schemas';
import { advisoryXactLock } from '../../../db/advisory';
import { transaction } from '../../../db/transaction';
import { createAgent } from '../agents/service';
import { startExecution } from '../executions/service';
import { env } from '../../platform/env.js';
import { ApiError } from '../../platform/errors';
import type { Score, ScoredRun } from './scorers';
import type { Scorer } from './scorer-schemas';

// The LLM judge (docs/evals.md, "Scorers"): a judge's verdict is a real execution of the
// workspace — of an agent of its own per judge model, "Eval judge · <model>", made the first time
// it is needed — so it is traced, metered and budgeted like any run, and shows in analytics
// under that agent. It is asked for `{score, reason}` as a structured output and sees the
// input, the expected answer, the output and the whole trajectory (each tool call with its
// arguments and result). A judge that fails, times out or answers outside 0–1 scores `null`
// with the reason, never 0.

type Judge = Extract<Scorer, { type: 'llm_judge' }>;
type Owner = { workspaceId: string; environment: 'live' | 'test' };

/** What the judge answers: strict structured output. */
export const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    score: { type: 'number', description: 'From 0 (fails the rubric entirely) to 1 (meets it fully).' },
    reason: { type: 'string', description: 'One or two sentences on why.' },
  },
  required: ['score', 'reason'],
  additionalProperties: false,
} as const;

const INSTRUCTIONS =
  'You are an evaluator. You are given a rubric, the input an AI agent received, the answer expected (if any), ' +
  'the agent’s output and its trajectory (the tools it called, with their arguments and results). Judge the output ' +
  'against the rubric only. Answer with a score from 0 to 1 and a short reason.';

/** The most of the run shown to a judge (its input, expected, output and trajectory together). */
const MAX_PROMPT_CHARS = 60_000;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [cut: ${text.length - max} more characters]` : text);

/** The judge's agent for `model`: found, or made once (under a lock: two drivers make one). */
export async function judgeAgentId(db: Db, owner: Owner, model: string): Promise<string> {
  const name = `Eval judge · ${model}`.slice(0, 100);
  const find = (tx: Db) =>
    tx
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.workspaceId, owner.workspaceId), eq(agents.environment, owner.environment), eq(agents.name, name), eq(agents.model, model), isNull(agents.deletedAt)))
      .limit(1);
  const [found] = await find(db);
  if (found) return found.id;
  return transaction(db, async (tx) => {
    await advisoryXactLock(tx, sql`hashtext(${`judge:${owner.workspaceId}:${owner.environment}:${model}`})`);
    const [again] = await find(tx);
    if (again) return again.id;
    const input = createAgentInput.parse({ name, model, instructions: INSTRUCTIONS, maxSteps: 1, timeoutSeconds: env.EVAL_JUDGE_TIMEOUT_SECONDS, temperature: 0, metadata: { purpose: 'eval-judge' } });
    return (await createAgent(tx, owner, input)).id;
  });
}

/** The judge's prompt: the rubric and everything of the run it may judge by. */
export function judgePrompt(judge: Judge, run: ScoredRun & { toolResults?: { name: string; result: unknown }[] }, input: string, expected: unknown): string {
  const trajectory = run.toolCalls.map((c, i) => ({ tool: c.tool, arguments: c.arguments, result: run.toolResults?.[i]?.result }));
  const parts = [
    `# Rubric\n${judge.rubric}`,
    `# Input\n${clip(input, 20_000)}`,
    `# Expected\n${expected === null || expected === undefined ? '(none given)' : clip(typeof expected === 'string' ? expected : JSON.stringify(expected), 10_000)}`,
    `# Output\n${run.output === null ? `(none: the run ${run.error ? `failed, ${run.error.code}` : run.status})` : clip(run.output, 20_000)}`,
    `# Trajectory (${run.toolCalls.length} tool calls)\n${clip(JSON.stringify(trajectory, null, 1), 20_000)}`,
  ];
  return clip(parts.join('\n\n'), MAX_PROMPT_CHARS);
}

/**
 * Starts the judge's execution with the id given (written on the item beforehand: a driver that
 * takes over after a crash starts it under the same id, so it never runs twice). Queued: it runs
 * within the workspace's limits and budgets like any run.
 */
export async function startJudge(
  db: Db,
  owner: Owner,
  judge: Judge,
  prompt: string,
  opts: { id: string; judged: string; experimentId?: string; ruleId?: string; keyId?: string | null },
): Promise<void> {
  const agentId = await judgeAgentId(db, owner, judge.model);
  const trigger = { type: 'judge' as const, executionId: opts.judged, ...(opts.experimentId ? { experimentId: opts.experimentId } : {}), ...(opts.ruleId ? { ruleId: opts.ruleId } : {}) };
  await startExecution(db, owner, agentId, { input: prompt, outputSchema: VERDICT_SCHEMA as unknown as Record<string, unknown> }, {
    id: opts.id,
    trigger,
    ...(opts.keyId ? { keyId: opts.keyId } : {}),
  });
}

/** A judge execution's verdict once it ended. */
export function verdictOf(judge: Judge, ended: { status: string; outputJson: unknown; errorCode: string | null } | undefined): Score {
  if (!ended) return { score: null, pass: null, reason: 'the judge’s execution is gone' };
  if (ended.status !== 'succeeded') return { score: null, pass: null, reason: `the judge did not answer (${ended.errorCode ?? ended.status})` };
  const v = ended.outputJson as { score?: unknown; reason?: unknown } | null;
  const score = v?.score;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
    return { score: null, pass: null, reason: `the judge answered a score outside 0–1 (${JSON.stringify(score)?.slice(0, 40) ?? 'none'})` };
  }
  const reason = typeof v?.reason === 'string' && v.reason.trim() ? v.reason.trim().slice(0, 300) : 'the judge gave no reason';
  return { score, pass: score >= (judge.passThreshold ?? 0.5), reason };
}

/** A judge that could not be started (its agent could not be made, a budget refused it): the scorer could not score. */
export function unstartedJudge(err: unknown): Score {
  const why = err instanceof ApiError ? err.code : 'error';
  return { score: null, pass: null, reason: `the judge could not run (${why})` };
}
