import { sql, type SQL } from 'drizzle-orm';
import type { StoredStep } from '../../../db/schema';
import type { ScoredRun } from './scorers';

// What a scorer sees of an ended execution (docs/evals.md, "Scorers"): its status and error, its
// text and structured output, and its trajectory — every tool call in order, with its arguments
// and result — read from the execution's row by one select the driver and online scoring share.

/** The columns of `executions e` a scored run is read from. */
export const RUN_COLUMNS: SQL = sql`e.id as run_id, e.status as run_status, e.output as run_output, e.output_json as run_output_json,
  e.error_code as run_error_code, e.error_message as run_error_message, e.steps::text as run_steps, e.workspace_id as run_workspace, e.key_id as run_key`;

export interface RunColumns {
  run_id: string | null;
  run_status: string | null;
  run_output: string | null;
  run_output_json: unknown;
  run_error_code: string | null;
  run_error_message: string | null;
  run_steps: string | null;
}

export type RecordedRun = ScoredRun & { toolResults: { name: string; result: unknown }[] };

/** The run as scorers see it. */
export function recordedRun(row: RunColumns): RecordedRun {
  const steps = row.run_steps ? (JSON.parse(row.run_steps) as StoredStep[]) : [];
  const outputJson = typeof row.run_output_json === 'string' ? safeParse(row.run_output_json) : (row.run_output_json ?? null);
  return {
    status: row.run_status ?? 'failed',
    output: row.run_output,
    outputJson,
    error: row.run_error_code ? { code: row.run_error_code, message: row.run_error_message ?? '' } : null,
    toolCalls: steps.flatMap((s) => (s.toolCalls ?? []).map((c) => ({ tool: c.name, arguments: c.arguments }))),
    toolResults: steps.flatMap((s) => (s.toolResults ?? []).map((r) => ({ name: r.name, result: r.result }))),
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What an item shows as its output: the structured output when there is one, else the text. */
export const shownOutput = (run: RecordedRun): unknown => run.outputJson ?? run.output ?? null;
