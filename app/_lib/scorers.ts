import type { ScorerInput } from './types';

// The scorer builder's model (server/modules/evals/scorer-schemas.ts): a scorer as the form holds
// it — every field as typed, JSON as text — turned into what the API takes, with the problem of
// the first field that will not do; and a stored scorer (a rule's) back into a draft to edit.

export type ScorerType = ScorerInput['type'];
export type TrajectoryMode = 'exact' | 'in_order' | 'any_order';

export const SCORER_TYPES: readonly ScorerType[] = ['exact_match', 'contains', 'regex', 'json_schema', 'tool_trajectory', 'max_tool_calls', 'llm_judge'];

/** What each scorer checks, in a few words (the builder's select and hints). */
export const SCORER_WORDS: Record<ScorerType, { label: string; hint: string }> = {
  exact_match: { label: 'Exact match', hint: 'The answer equals the item’s expected answer (trimmed; JSON key order ignored). Items without one are not scored.' },
  contains: { label: 'Contains', hint: 'The answer contains a text.' },
  regex: { label: 'Regex', hint: 'An RE2 pattern matches somewhere in the answer (no lookaround or backreferences).' },
  json_schema: { label: 'JSON Schema', hint: 'The structured output (or the answer parsed as JSON) is valid against a schema.' },
  tool_trajectory: { label: 'Tool trajectory', hint: 'The run made the tool calls expected: the share of them found.' },
  max_tool_calls: { label: 'Max tool calls', hint: 'The run made at most this many tool calls.' },
  llm_judge: { label: 'LLM judge', hint: 'A model grades the answer against a rubric, 0–1 (each verdict is an execution of its own).' },
};

export const MODE_WORDS: Record<TrajectoryMode, string> = { in_order: 'In order (others may come between)', exact: 'Exactly these, in order', any_order: 'Each of these, any order' };

export interface ScorerDraft {
  /** The draft's own key in the list (not sent). */
  key: string;
  type: ScorerType;
  name: string;
  value: string;
  ignoreCase: boolean;
  pattern: string;
  schema: string;
  expected: string;
  mode: TrajectoryMode;
  max: string;
  model: string;
  rubric: string;
  passThreshold: string;
}

let nextKey = 0;
const newKey = () => `scorer-${++nextKey}`;

export function newScorerDraft(type: ScorerType): ScorerDraft {
  return {
    key: newKey(),
    type,
    name: '',
    value: '',
    ignoreCase: false,
    pattern: '',
    schema: '{\n  "type": "object"\n}',
    expected: '[\n  {"tool": "lookup_order"}\n]',
    mode: 'in_order',
    max: '5',
    model: 'openai/gpt-4o-mini',
    rubric: '',
    passThreshold: '0.5',
  };
}

/** A field of a draft that can be wrong. */
export type ScorerField = 'name' | 'value' | 'pattern' | 'schema' | 'expected' | 'max' | 'model' | 'rubric' | 'passThreshold';

export type ScorerCheck = { ok: true; scorer: ScorerInput } | { ok: false; field: ScorerField; message: string };

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: `This is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The scorer the API takes for a draft, or the first field that will not do and why. */
export function toScorer(d: ScorerDraft): ScorerCheck {
  const name = d.name.trim();
  if (name && !NAME.test(name)) return { ok: false, field: 'name', message: 'Use 1–64 letters, digits, “_”, “-” or “.”.' };
  const named = name ? { name } : {};
  switch (d.type) {
    case 'exact_match':
      return { ok: true, scorer: { type: 'exact_match', ...named } };
    case 'contains':
      if (!d.value) return { ok: false, field: 'value', message: 'Enter the text the answer must contain.' };
      return { ok: true, scorer: { type: 'contains', value: d.value, ignoreCase: d.ignoreCase, ...named } };
    case 'regex':
      if (!d.pattern) return { ok: false, field: 'pattern', message: 'Enter a pattern.' };
      return { ok: true, scorer: { type: 'regex', pattern: d.pattern, ...named } };
    case 'json_schema': {
      const parsed = parseJson(d.schema);
      if (!parsed.ok) return { ok: false, field: 'schema', message: parsed.message };
      if (!isObject(parsed.value)) return { ok: false, field: 'schema', message: 'A JSON Schema is an object {…}.' };
      return { ok: true, scorer: { type: 'json_schema', schema: parsed.value, ...named } };
    }
    case 'tool_trajectory': {
      const parsed = parseJson(d.expected);
      if (!parsed.ok) return { ok: false, field: 'expected', message: parsed.message };
      const calls = parsed.value;
      if (!Array.isArray(calls) || calls.length === 0) return { ok: false, field: 'expected', message: 'A list of 1–50 calls: [{"tool": "name", "arguments": {…}}, …].' };
      if (calls.length > 50) return { ok: false, field: 'expected', message: 'At most 50 calls.' };
      for (const [i, call] of calls.entries()) {
        if (!isObject(call) || typeof call.tool !== 'string' || !call.tool) return { ok: false, field: 'expected', message: `Call ${i + 1} needs a "tool" (its name).` };
        if (call.arguments !== undefined && !isObject(call.arguments)) return { ok: false, field: 'expected', message: `The "arguments" of call ${i + 1} are an object {…}.` };
      }
      return { ok: true, scorer: { type: 'tool_trajectory', expected: calls as { tool: string; arguments?: Record<string, unknown> }[], mode: d.mode, ...named } };
    }
    case 'max_tool_calls': {
      const max = Number(d.max);
      if (d.max.trim() === '' || !Number.isInteger(max) || max < 0 || max > 1000) return { ok: false, field: 'max', message: 'A whole number from 0 to 1,000.' };
      return { ok: true, scorer: { type: 'max_tool_calls', max, ...named } };
    }
    case 'llm_judge': {
      const model = d.model.trim();
      if (!/^[a-z0-9-]+\/\S+$/.test(model)) return { ok: false, field: 'model', message: 'The judge’s model, as provider/model (e.g. openai/gpt-4o-mini).' };
      if (!d.rubric.trim()) return { ok: false, field: 'rubric', message: 'Say what the judge grades the answer on.' };
      const threshold = Number(d.passThreshold);
      if (d.passThreshold.trim() === '' || !(threshold >= 0 && threshold <= 1)) return { ok: false, field: 'passThreshold', message: 'A score from 0 to 1.' };
      return { ok: true, scorer: { type: 'llm_judge', model, rubric: d.rubric, passThreshold: threshold, ...named } };
    }
  }
}

/** The name a draft's scorer will have: its own, or its type. */
export const draftName = (d: ScorerDraft): string => d.name.trim() || d.type;

/** Drafts' names that clash (ignoring case, as the server compares them). */
export function clashingNames(drafts: readonly ScorerDraft[]): Set<string> {
  const seen = new Map<string, number>();
  for (const d of drafts) seen.set(draftName(d).toLowerCase(), (seen.get(draftName(d).toLowerCase()) ?? 0) + 1);
  return new Set(drafts.filter((d) => (seen.get(draftName(d).toLowerCase()) ?? 0) > 1).map((d) => d.key));
}

const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback);

/** A stored scorer (with its `name`) as a draft to edit; its name kept only when it is not its type. */
export function draftOf(stored: Record<string, unknown>): ScorerDraft {
  const type = (SCORER_TYPES as readonly unknown[]).includes(stored.type) ? (stored.type as ScorerType) : 'exact_match';
  const d = newScorerDraft(type);
  const name = str(stored.name);
  return {
    ...d,
    name: name && name !== type ? name : '',
    value: str(stored.value),
    ignoreCase: stored.ignoreCase === true,
    pattern: str(stored.pattern),
    schema: stored.schema !== undefined ? JSON.stringify(stored.schema, null, 2) : d.schema,
    expected: stored.expected !== undefined ? JSON.stringify(stored.expected, null, 2) : d.expected,
    mode: stored.mode === 'exact' || stored.mode === 'any_order' ? stored.mode : 'in_order',
    max: typeof stored.max === 'number' ? String(stored.max) : d.max,
    model: str(stored.model, d.model),
    rubric: str(stored.rubric),
    passThreshold: typeof stored.passThreshold === 'number' ? String(stored.passThreshold) : d.passThreshold,
  };
}

/** A stored scorer in a few words: "contains “refund” (any case)", "max 5 tool calls"… */
export function describeScorer(s: Record<string, unknown>): string {
  switch (s.type) {
    case 'contains':
      return `contains “${str(s.value)}”${s.ignoreCase ? ' (any case)' : ''}`;
    case 'regex':
      return `matches /${str(s.pattern)}/`;
    case 'max_tool_calls':
      return `at most ${String(s.max)} tool calls`;
    case 'llm_judge':
      return `judged by ${str(s.model)}`;
    case 'tool_trajectory':
      return `${Array.isArray(s.expected) ? s.expected.length : 0} expected tool calls, ${str(s.mode, 'in_order').replace('_', ' ')}`;
    case 'json_schema':
      return 'valid against a JSON Schema';
    case 'exact_match':
      return 'equals the expected answer';
    default:
      return str(s.type);
  }
}
