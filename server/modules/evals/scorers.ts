import { RE2JS } from 're2js';
import { canonicalJson } from '../../platform/canonical-json';
import { SCHEMA_BUDGET_MS, validateArguments } from '../tools/schema-pool';
import type { Scorer } from './scorer-schemas';

// Deterministic scoring of one run by one scorer (scorer-schemas.ts): a score from 0 to 1,
// whether it passes, and a short reason in plain English. Output scorers (exact_match, contains,
// regex, json_schema) read the run's answer; trajectory scorers (tool_trajectory, max_tool_calls)
// read the tool calls it made. A run that did not end by the agent's own doing (cancelled, or
// its worker lost) is not scored: score and pass are null. llm_judge is scored by a judge
// execution, elsewhere. Everything here but json_schema (the schema pool's threads) runs on the
// event loop in microseconds: RE2 matches in linear time, and compiled patterns are cached.

export interface ScoredRun {
  status: 'succeeded' | 'failed' | 'cancelled' | string;
  /** The final text answer. */
  output: string | null;
  /** Structured output, when the agent had an output schema. */
  outputJson: unknown | null;
  error: { code: string; message: string } | null;
  /** The run's tool calls, in order (the trajectory). */
  toolCalls: { tool: string; arguments: unknown }[];
}

export interface Score {
  score: number | null;
  pass: boolean | null;
  reason: string;
}

/** Longest reason, and the most of a run's output (or of a scorer's text) a reason quotes. */
const MAX_REASON = 300;
const MAX_QUOTE = 100;

const clip = (reason: string) => (reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason);
/** At most 100 characters of a text, for a reason. */
const snippet = (text: string) => (text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text);
/** Text quoted in a reason: at most 100 characters of it, as a JSON string. */
const quote = (text: string) => JSON.stringify(snippet(text));
const result = (score: number | null, reason: string, pass: boolean | null = score === null ? null : score === 1): Score => ({ score, pass, reason: clip(reason) });
const notScored = (reason: string): Score => ({ score: null, pass: null, reason: clip(reason) });
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

// ---- compiled patterns ----

const PATTERN_CACHE_SIZE = 256;
const patterns = new Map<string, RE2JS>();

/** The compiled pattern, least recently used first out of the cache. Throws when RE2 refuses it. */
function compiled(pattern: string): RE2JS {
  const hit = patterns.get(pattern);
  if (hit) {
    patterns.delete(pattern);
    patterns.set(pattern, hit);
    return hit;
  }
  const re = RE2JS.compile(pattern);
  patterns.set(pattern, re);
  if (patterns.size > PATTERN_CACHE_SIZE) patterns.delete(patterns.keys().next().value!);
  return re;
}

// ---- the run's answer ----

/** Why the run is not scored at all (null: it is): it did not end by the agent's own doing. */
function unscorable(run: ScoredRun): string | null {
  if (run.status === 'cancelled') return 'the run was cancelled: not scored';
  if (run.error?.code === 'worker_lost') return 'the run was lost with its worker: not scored';
  return null;
}

/** Why the run has no answer to score (it failed), or null when it succeeded. */
function failure(run: ScoredRun): string | null {
  if (run.status === 'succeeded') return null;
  return run.error ? `the run failed (${run.error.code})` : `the run did not succeed (${run.status})`;
}

/** The answer as text: the output, else the structured output as JSON. */
function textOf(run: ScoredRun): string | null {
  if (run.output !== null) return run.output;
  return run.outputJson !== null && run.outputJson !== undefined ? JSON.stringify(run.outputJson) : null;
}

type Json = { ok: true; value: unknown } | { ok: false; reason: string };

/** The answer as a JSON value: the structured output, else the output parsed. */
function jsonOf(run: ScoredRun): Json {
  if (run.outputJson !== null && run.outputJson !== undefined) return { ok: true, value: run.outputJson };
  if (run.output === null) return { ok: false, reason: 'the run gave no output' };
  try {
    return { ok: true, value: JSON.parse(run.output) };
  } catch {
    return { ok: false, reason: 'the output is not JSON' };
  }
}

function exactMatch(run: ScoredRun, expected: unknown): Score {
  if (typeof expected === 'string') {
    const text = textOf(run);
    if (text === null) return result(0, 'the run gave no output');
    return text.trim() === expected.trim() ? result(1, 'the output equals the expected output') : result(0, `the output ${quote(text.trim())} differs from the expected ${quote(expected.trim())}`);
  }
  const json = jsonOf(run);
  if (!json.ok) return result(0, json.reason);
  if (canonicalJson(json.value) === canonicalJson(expected)) return result(1, 'the output equals the expected JSON');
  return result(0, `the output ${snippet(canonicalJson(json.value))} differs from the expected JSON`);
}

function contains(run: ScoredRun, value: string, ignoreCase: boolean): Score {
  const text = textOf(run);
  if (text === null) return result(0, 'the run gave no output');
  const found = ignoreCase ? text.toLowerCase().includes(value.toLowerCase()) : text.includes(value);
  const how = ignoreCase ? ' (ignoring case)' : '';
  return found ? result(1, `the output contains ${quote(value)}${how}`) : result(0, `the output does not contain ${quote(value)}${how}`);
}

function regex(run: ScoredRun, pattern: string): Score {
  let re: RE2JS;
  try {
    re = compiled(pattern);
  } catch {
    return notScored(`the pattern ${quote(pattern)} does not compile under RE2: not scored`);
  }
  const text = textOf(run);
  if (text === null) return result(0, 'the run gave no output');
  return re.matcher(text).find() ? result(1, `the output matches ${quote(pattern)}`) : result(0, `the output does not match ${quote(pattern)}`);
}

async function jsonSchema(run: ScoredRun, schema: Record<string, unknown>, owner: string): Promise<Score> {
  const json = jsonOf(run);
  if (!json.ok) return result(0, json.reason);
  const outcome = await validateArguments(owner, schema, json.value);
  if (outcome.ok) return result(1, 'the output is valid against the schema');
  switch (outcome.reason) {
    case 'invalid':
      return result(0, `the output is not valid against the schema: ${outcome.message.length > 250 ? `${outcome.message.slice(0, 250)}…` : outcome.message}`);
    case 'too_slow':
      return notScored(`validating the output took longer than ${SCHEMA_BUDGET_MS / 1000} s: not scored`);
    case 'busy':
      return notScored('too many schema checks of this workspace were waiting: not scored');
  }
}

// ---- the run's tool calls ----

type Expected = { tool: string; arguments?: Record<string, unknown> };

/** An expected call, for a reason: its tool, and its arguments (at most 100 characters) when it gives them. */
const describeCall = (call: Expected) => (call.arguments === undefined ? call.tool : `${call.tool} with arguments ${snippet(canonicalJson(call.arguments))}`);

function toolTrajectory(calls: ScoredRun['toolCalls'], expected: readonly Expected[], mode: 'exact' | 'in_order' | 'any_order'): Score {
  const made = `made ${plural(calls.length, 'tool call')}`;
  // Canonical JSON of each side's arguments, made once (and only for calls of an expected tool).
  const wanted = expected.map((e) => (e.arguments === undefined ? undefined : canonicalJson(e.arguments)));
  const given = new Map<number, string>();
  const matches = (e: number, c: number) => {
    if (expected[e]!.tool !== calls[c]!.tool) return false;
    if (wanted[e] === undefined) return true;
    if (!given.has(c)) given.set(c, canonicalJson(calls[c]!.arguments) ?? 'undefined');
    return given.get(c) === wanted[e];
  };
  const missing = (e: number, where = '') => `the expected call ${e + 1} (${describeCall(expected[e]!)}) was not found${where}; the run ${made}`;

  if (mode === 'exact') {
    const first = expected.findIndex((_, e) => e >= calls.length || !matches(e, e));
    if (first >= 0) return result(0, missing(first, ` at position ${first + 1}`));
    if (calls.length > expected.length) return result(0, `the run ${made}, more than the ${expected.length} expected`);
    return result(1, `the trajectory matched exactly; the run ${made}`);
  }

  let matched = 0;
  let firstMissing = -1;
  if (mode === 'in_order') {
    // The longest common subsequence of the expected calls and the calls (so one missing call
    // does not hide those after it): best[e][c] = expected calls from e matched in order in calls from c.
    const best = Array.from({ length: expected.length + 1 }, () => new Uint16Array(calls.length + 1));
    for (let e = expected.length - 1; e >= 0; e--) {
      for (let c = calls.length - 1; c >= 0; c--) {
        best[e]![c] = matches(e, c) ? best[e + 1]![c + 1]! + 1 : Math.max(best[e + 1]![c]!, best[e]![c + 1]!);
      }
    }
    matched = best[0]![0]!;
    // The first expected call left out of an alignment that keeps each expected call whenever it can.
    let [e, c] = [0, 0];
    while (e < expected.length && firstMissing < 0) {
      if (c < calls.length && matches(e, c)) {
        e++;
        c++;
      } else if (c < calls.length && best[e]![c + 1] === best[e]![c]) c++;
      else firstMissing = e;
    }
  } else {
    // A maximum matching of expected calls to distinct calls (augmenting paths): an expected
    // call without arguments does not take the one call an expected call with arguments needs.
    const takenBy = new Array<number>(calls.length).fill(-1);
    const take = (e: number, visited: Set<number>): boolean => {
      for (let c = 0; c < calls.length; c++) {
        if (visited.has(c) || !matches(e, c)) continue;
        visited.add(c);
        if (takenBy[c] === -1 || take(takenBy[c]!, visited)) {
          takenBy[c] = e;
          return true;
        }
      }
      return false;
    };
    for (let e = 0; e < expected.length; e++) if (take(e, new Set())) matched++;
    const found = new Set(takenBy);
    firstMissing = expected.findIndex((_, e) => !found.has(e));
  }
  const score = matched / expected.length;
  if (firstMissing < 0) return result(score, `the trajectory matched (${mode === 'in_order' ? 'in order' : 'in any order'}); the run ${made}`, true);
  return result(score, `${missing(firstMissing, mode === 'in_order' ? ' in order' : '')} (${matched} of ${expected.length} expected calls found)`, false);
}

function maxToolCalls(calls: ScoredRun['toolCalls'], max: number): Score {
  const n = calls.length;
  return n <= max ? result(1, `made ${plural(n, 'tool call')}, at most the ${max} allowed`) : result(0, `made ${plural(n, 'tool call')}, more than the ${max} allowed`);
}

// ---- scoring ----

/**
 * Scores a run by a deterministic scorer. `expected`: the dataset item's expected output (a
 * string, a JSON value, or null/undefined when it has none); `owner`: the workspace (its line of
 * the schema pool, for json_schema). Throws for llm_judge, which a judge execution scores.
 */
export async function scoreRun(scorer: Scorer, run: ScoredRun, expected: unknown, owner: string): Promise<Score> {
  if (scorer.type === 'llm_judge') throw new Error('llm_judge is scored by a judge execution');
  const skipped = unscorable(run);
  if (skipped) return notScored(skipped);
  switch (scorer.type) {
    case 'tool_trajectory':
      return toolTrajectory(run.toolCalls, scorer.expected, scorer.mode);
    case 'max_tool_calls':
      return maxToolCalls(run.toolCalls, scorer.max);
  }
  if (scorer.type === 'exact_match' && (expected === null || expected === undefined)) return notScored('the item has no expected output: not scored');
  const failed = failure(run);
  if (failed) return result(0, failed);
  switch (scorer.type) {
    case 'exact_match':
      return exactMatch(run, expected);
    case 'contains':
      return contains(run, scorer.value, scorer.ignoreCase);
    case 'regex':
      return regex(run, scorer.pattern);
    case 'json_schema':
      return jsonSchema(run, scorer.schema, owner);
  }
}
