import type { Span } from './types';

// A run's trace as the dashboard draws it (docs/traces.md): every span on one time axis (the
// root's, from the execution's creation), nested by parent, the slowest span and the dearest
// model call picked out. Pure, so the waterfall's geometry is tested without a browser.

/** The content attributes (recorded with the agent's `traceContent`), shown as messages rather than as attributes. */
export const CONTENT_ATTRIBUTES = ['gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages'] as const;

export interface WaterfallRow {
  span: Span;
  /** 0 for the root; its children 1; a tool call under its model call 2. */
  depth: number;
  /** Where the bar starts and how wide it is, as fractions (0–1) of the axis. */
  offset: number;
  width: number;
}

export interface Waterfall {
  rows: WaterfallRow[];
  /** The axis: its start (epoch ms) and length (ms, at least 1). */
  startMs: number;
  totalMs: number;
  /** The root span has not been written yet (it comes with the run's end). */
  rootPending: boolean;
  /** The longest span but the root (when there are two or more). */
  slowestId: string | null;
  /** The model call that cost the most (when two or more model calls were made and one cost anything). */
  dearestId: string | null;
}

const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n));

/** The model call's or tool call's step (0-based, `aas.step`); null for the others. */
export function stepOf(span: Span): number | null {
  const step = span.attributes['aas.step'];
  return typeof step === 'number' ? step : null;
}

/** A span's cost in USD: a number, null when unknown (no price), undefined for a span without one. */
export function costOf(span: Span): number | null | undefined {
  if (!span.cost) return undefined;
  return span.cost.usd === null ? null : Number(span.cost.usd);
}

export function tokensOf(span: Span): number | null {
  return span.usage ? span.usage.inputTokens + span.usage.outputTokens : null;
}

/** `provider/model` of a model call (or the root), from its GenAI attributes. */
export function modelOf(span: Span): string | null {
  const provider = span.attributes['gen_ai.provider.name'];
  const model = span.attributes['gen_ai.request.model'];
  if (typeof model !== 'string' || model === '') return null;
  return typeof provider === 'string' && provider !== '' && provider !== model ? `${provider}/${model}` : model;
}

/** What a row says: a title ("Step 2", the tool's name) and what it ran on (the model, the MCP server). */
export function spanLabel(span: Span): { title: string; detail: string | null } {
  switch (span.name) {
    case 'execution':
      return { title: 'Execution', detail: typeof span.attributes['gen_ai.agent.name'] === 'string' ? span.attributes['gen_ai.agent.name'] : null };
    case 'queue_wait':
      return { title: 'Queued', detail: null };
    case 'model_call': {
      const step = stepOf(span);
      return { title: step === null ? 'Model call' : `Step ${step + 1}`, detail: modelOf(span) };
    }
    case 'tool_call':
      return { title: span.tool ?? 'Tool call', detail: span.server ? `MCP · ${span.server}` : null };
    case 'approval_wait':
      return { title: 'Awaiting approval', detail: null };
    default:
      return { title: span.name, detail: null };
  }
}

/**
 * The rows of the waterfall. The axis runs from the root's start (or, before the root is written,
 * the execution's creation: `createdAt`) to the root's end (or the latest of the spans' ends and
 * `endMs`, the clock while the run goes on). Rows are in tree order: each span under its parent,
 * siblings in start order; a span whose parent is not in the trace sits under the root (the
 * root's children name it before it is written), or at the top without one and `rootPending` false.
 */
export function waterfallOf(spans: readonly Span[], opts: { createdAt?: string; endMs?: number; rootPending?: boolean } = {}): Waterfall {
  const root = spans.find((s) => s.name === 'execution' && (s.parentId === null || !spans.some((p) => p.id === s.parentId)));
  const byId = new Map(spans.map((s) => [s.id, s]));
  const starts = spans.map((s) => Date.parse(s.startedAt));
  const ends = spans.map((s) => Date.parse(s.endedAt));
  const created = opts.createdAt ? Date.parse(opts.createdAt) : Number.NaN;
  const firsts = [...(Number.isNaN(created) ? [] : [created]), ...starts];
  const startMs = root ? Date.parse(root.startedAt) : firsts.length > 0 ? Math.min(...firsts) : (opts.endMs ?? 0);
  const endMs = root ? Date.parse(root.endedAt) : Math.max(...ends, opts.endMs ?? Number.NEGATIVE_INFINITY, startMs);
  const totalMs = Math.max(1, endMs - startMs);
  const rootPending = !root && (opts.rootPending ?? false);

  // Children by parent (the root's key: its id, or '' while it is pending), in start order.
  const top = root ? root.id : '';
  const children = new Map<string, Span[]>();
  for (const s of spans) {
    if (s === root) continue;
    const parent = s.parentId !== null && byId.has(s.parentId) ? s.parentId : top;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const order = (list: Span[]) => list.map((s, i) => ({ s, i })).sort((a, b) => Date.parse(a.s.startedAt) - Date.parse(b.s.startedAt) || a.i - b.i).map(({ s }) => s);
  const rows: WaterfallRow[] = [];
  const seen = new Set<string>();
  const row = (span: Span, depth: number): WaterfallRow => {
    const offset = clamp((Date.parse(span.startedAt) - startMs) / totalMs, 0, 1);
    return { span, depth, offset, width: clamp(span.durationMs / totalMs, 0, 1 - offset) };
  };
  const visit = (span: Span, depth: number) => {
    if (seen.has(span.id)) return;
    seen.add(span.id);
    rows.push(row(span, depth));
    for (const child of order(children.get(span.id) ?? [])) visit(child, depth + 1);
  };
  if (root) visit(root, 0);
  else for (const s of order(children.get('') ?? [])) visit(s, rootPending ? 1 : 0);
  // Whatever a cycle of parents left out, at the end.
  for (const s of spans) if (!seen.has(s.id)) visit(s, 0);

  const others = spans.filter((s) => s !== root);
  const slowest = others.length >= 2 ? others.reduce((a, b) => (b.durationMs > a.durationMs ? b : a)) : null;
  const calls = spans.filter((s) => s.name === 'model_call');
  const priced = calls.filter((s) => (costOf(s) ?? 0) > 0);
  const dearest = calls.length >= 2 && priced.length > 0 ? priced.reduce((a, b) => ((costOf(b) ?? 0) > (costOf(a) ?? 0) ? b : a)) : null;
  return { rows, startMs, totalMs, rootPending, slowestId: slowest && slowest.durationMs > 0 ? slowest.id : null, dearestId: dearest?.id ?? null };
}

/** Content as recorded: JSON text parsed, or the text itself (a value cut at 32 KB no longer parses); `cut`: the bytes left out. */
export function parseContent(text: string): { value: unknown; cut: number | null } {
  const mark = /…\[cut: (\d+) more bytes\]$/u.exec(text);
  if (mark) return { value: text.slice(0, mark.index), cut: Number(mark[1]) };
  try {
    return { value: JSON.parse(text) as unknown, cut: null };
  } catch {
    return { value: text, cut: null };
  }
}

/** An attribute's value as text (a list joined with commas). */
export function attributeText(value: Span['attributes'][string]): string {
  return Array.isArray(value) ? value.join(', ') : String(value);
}
