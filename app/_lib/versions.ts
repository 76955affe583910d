import { LABEL_PATTERN, MAX_LABELS } from '@/server/modules/agents/version-schemas';
import { diffLines, type DiffLine } from './line-diff';
import type { AgentVersion, AgentVersionConfig } from './types';

// An agent's versions and labels as the dashboard shows them (docs/versions.md): who made a
// version, two versions compared field by field, a label's name checked as the server checks it,
// and where "Roll back" takes production.

export { LABEL_PATTERN, MAX_LABELS };
export const PRODUCTION = 'production';
export const VERSION_NOTE_MAX = 500;

/** Who made a version, in words: the user's email, the key's prefix, or the service. */
export function authorOf(author: AgentVersion['createdBy']): string {
  if (author.type === 'user') return author.email ?? 'a former member';
  if (author.type === 'key') return author.prefix ? `key ${author.prefix}…` : 'an API key';
  return 'the service';
}

/** The problem with a new label's name, or null when the server would take it. */
export function labelProblem(name: string, labels: Record<string, number>): string | null {
  if (name === '') return 'Name the label.';
  if (!LABEL_PATTERN.test(name)) return 'Use 1–40 lower-case letters (a–z), digits or “-”.';
  if (Object.hasOwn(labels, name)) return `The agent already has “${name}”: choose it in the list to move it.`;
  if (Object.keys(labels).length >= MAX_LABELS) return `An agent has at most ${MAX_LABELS} labels: remove one first.`;
  return null;
}

/** The labels in the order they are shown: production first, then by name. */
export function sortedLabels(labels: Record<string, number>): [string, number][] {
  return Object.entries(labels).sort(([a], [b]) => (a === PRODUCTION ? -1 : b === PRODUCTION ? 1 : a.localeCompare(b)));
}

/** The labels pointing at one version. */
export const labelsAt = (labels: Record<string, number>, version: number): string[] =>
  sortedLabels(labels)
    .filter(([, v]) => v === version)
    .map(([l]) => l);

// ---- comparing two versions ----

/** JSON with object keys sorted, indented: two equal values read the same, whatever their key order. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v;
  return JSON.stringify(sort(value), null, 2);
}

export interface FieldChange {
  field: keyof AgentVersionConfig;
  label: string;
  before: string;
  after: string;
  changed: boolean;
}

export interface ToolChange {
  name: string;
  status: 'added' | 'removed' | 'changed' | 'same';
  /** The tool's JSON in each version (null where it is not). */
  before: string | null;
  after: string | null;
  lines: DiffLine[];
}

export interface VersionComparison {
  instructions: DiffLine[];
  fields: FieldChange[];
  tools: ToolChange[];
}

const seconds = (n: number) => `${n.toLocaleString('en-US')} s`;

/** The fields other than instructions and tools, in words, in the agent form's order. */
const FIELDS: { field: Exclude<keyof AgentVersionConfig, 'instructions' | 'tools'>; label: string; words: (c: AgentVersionConfig) => string }[] = [
  { field: 'model', label: 'Model', words: (c) => c.model },
  { field: 'temperature', label: 'Temperature', words: (c) => (c.temperature === null ? 'Model default' : String(c.temperature)) },
  { field: 'maxSteps', label: 'Max steps', words: (c) => String(c.maxSteps) },
  { field: 'timeoutSeconds', label: 'Timeout', words: (c) => seconds(c.timeoutSeconds) },
  { field: 'maxTotalTokens', label: 'Max tokens per run', words: (c) => (c.maxTotalTokens === null ? 'No limit' : c.maxTotalTokens.toLocaleString('en-US')) },
  { field: 'approvalTimeoutSeconds', label: 'Approval timeout', words: (c) => seconds(c.approvalTimeoutSeconds) },
  { field: 'traceContent', label: 'Content in traces', words: (c) => (c.traceContent ? 'Recorded' : 'Not recorded') },
  { field: 'outputSchema', label: 'Output schema', words: (c) => (c.outputSchema ? `JSON Schema (${Object.keys((c.outputSchema.properties ?? {}) as object).length} properties)` : 'None (free text)') },
];

/** What differs from `before` to `after`: the instructions line by line, the other fields one by one, the tools by name (as JSON). */
export function compareConfigs(before: AgentVersionConfig, after: AgentVersionConfig): VersionComparison {
  const fields = FIELDS.map(({ field, label, words }) => {
    const [b, a] = [words(before), words(after)];
    // A version made before a field existed lacks it: the same as its default (null).
    return { field, label, before: b, after: a, changed: canonicalJson(before[field] ?? null) !== canonicalJson(after[field] ?? null) };
  });
  const oldTools = new Map(before.tools.map((t) => [t.name, canonicalJson(t)]));
  const newTools = new Map(after.tools.map((t) => [t.name, canonicalJson(t)]));
  // The newer version's order, then the tools it no longer has.
  const names = [...after.tools.map((t) => t.name), ...before.tools.map((t) => t.name).filter((n) => !newTools.has(n))];
  const tools = names.map((name): ToolChange => {
    const b = oldTools.get(name) ?? null;
    const a = newTools.get(name) ?? null;
    const status = b === null ? 'added' : a === null ? 'removed' : a === b ? 'same' : 'changed';
    return { name, status, before: b, after: a, lines: diffLines(b, a) };
  });
  return { instructions: diffLines(before.instructions, after.instructions), fields, tools };
}

// ---- rolling production back ----

/** A label's value in the audit log: a version, `"latest"` (following), or null (none). */
export type LabelValue = number | 'latest' | null;

/** A move of production as the audit log records it (`changes["labels.production"]`). */
export interface LabelMove {
  at: string;
  before: LabelValue;
  after: LabelValue;
}

/** When a version was made. */
export interface VersionStamp {
  version: number;
  createdAt: string;
}

const asLabelValue = (v: unknown): LabelValue | undefined => (v === null || v === 'latest' || (typeof v === 'number' && Number.isInteger(v)) ? (v as LabelValue) : undefined);

/** A label's moves in audit records (`agent.label_moved` of one agent, any order): those that name it, well formed. */
export function labelMovesOf(events: { createdAt: string; changes: Record<string, [unknown, unknown]> | null }[], label = PRODUCTION): LabelMove[] {
  return events.flatMap((e) => {
    const change = e.changes?.[`labels.${label}`];
    if (!change) return [];
    const [before, after] = [asLabelValue(change[0]), asLabelValue(change[1])];
    return before === undefined || after === undefined ? [] : [{ at: e.createdAt, before, after }];
  });
}

/**
 * The version production pointed at before its last change — a move by hand, or a new version
 * while it followed the latest — from its moves (the audit log) and when each version was made.
 * Null when that cannot be told: the history given does not end where production is now (`current`;
 * say, a move older than the audit log keeps), or production never pointed elsewhere.
 */
export function productionBefore(current: number, moves: LabelMove[], versions: VersionStamp[]): number | null {
  const ms = (iso: string) => Date.parse(iso);
  const sortedMoves = [...moves].sort((x, y) => ms(x.at) - ms(y.at));
  const stamps = versions.map((v) => ({ version: v.version, at: ms(v.createdAt) }));
  /** Production's version at instant t: just after what happened at t (`inclusive`), or just before. */
  function at(t: number, inclusive: boolean): number | null {
    const upTo = (x: number) => (inclusive ? x <= t : x < t);
    const last = sortedMoves.filter((m) => upTo(ms(m.at))).pop();
    const value = last ? last.after : sortedMoves.length > 0 ? sortedMoves[0]!.before : 'latest';
    if (value === null) return null;
    if (value !== 'latest') return value;
    const made = stamps.filter((s) => upTo(s.at)).map((s) => s.version);
    return made.length > 0 ? Math.max(...made) : null;
  }
  if (at(Number.POSITIVE_INFINITY, true) !== current) return null;
  const instants = [...new Set([...sortedMoves.map((m) => ms(m.at)), ...stamps.map((s) => s.at)])].sort((x, y) => y - x);
  for (const t of instants) {
    const [before, after] = [at(t, false), at(t, true)];
    if (before !== after) return before !== null && before !== current ? before : null;
  }
  return null;
}
