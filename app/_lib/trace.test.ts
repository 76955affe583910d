import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeText, parseContent, spanLabel, waterfallOf } from './trace';
import type { Span } from './types';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
/** A fraction without floating-point dust. */
const f = (n: number) => Math.round(n * 1e6) / 1e6;

function span(id: string, name: Span['name'], parentId: string | null, from: number, to: number, fields: Partial<Span> = {}): Span {
  return {
    id,
    parentId,
    name,
    kind: name === 'model_call' || name === 'tool_call' ? 'client' : 'internal',
    startedAt: at(from),
    endedAt: at(to),
    durationMs: to - from,
    status: 'ok',
    error: null,
    attributes: {},
    ...fields,
  };
}

const model = (id: string, step: number, from: number, to: number, usd: string | null = '0') =>
  span(id, 'model_call', 'root', from, to, {
    attributes: { 'aas.step': step, 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o' },
    usage: { inputTokens: 10, outputTokens: 5 },
    cost: { usd },
  });

// A run of 1 s: queued 100 ms, a model call that called a tool, then a second model call.
const RUN: Span[] = [
  span('root', 'execution', null, 0, 1000, { cost: { usd: '0.003' } }),
  span('queue', 'queue_wait', 'root', 0, 100),
  model('m0', 0, 100, 400, '0.001'),
  span('t0', 'tool_call', 'm0', 400, 800, { tool: 'lookup_order', attributes: { 'aas.step': 0 } }),
  model('m1', 1, 800, 1000, '0.002'),
];

describe('the waterfall', () => {
  it('puts every span on the root’s axis, each under its parent, in start order', () => {
    const w = waterfallOf(RUN);
    assert.equal(w.startMs, T0);
    assert.equal(w.totalMs, 1000);
    assert.equal(w.rootPending, false);
    assert.deepEqual(
      w.rows.map((r) => [r.span.id, r.depth, f(r.offset), f(r.width)]),
      [
        ['root', 0, 0, 1],
        ['queue', 1, 0, 0.1],
        ['m0', 1, 0.1, 0.3],
        ['t0', 2, 0.4, 0.4],
        ['m1', 1, 0.8, 0.2],
      ],
    );
  });

  it('keeps the tree order whatever order the spans come in', () => {
    const w = waterfallOf([RUN[4]!, RUN[3]!, RUN[0]!, RUN[2]!, RUN[1]!]);
    assert.deepEqual(
      w.rows.map((r) => r.span.id),
      ['root', 'queue', 'm0', 't0', 'm1'],
    );
  });

  it('picks the slowest span but the root, and the dearest model call', () => {
    const w = waterfallOf(RUN);
    assert.equal(w.slowestId, 't0');
    assert.equal(w.dearestId, 'm1');
  });

  it('names no dearest call when none cost anything, or there is only one call', () => {
    assert.equal(waterfallOf([RUN[0]!, model('a', 0, 0, 10, '0'), model('b', 1, 10, 20, '0')]).dearestId, null);
    assert.equal(waterfallOf([RUN[0]!, model('a', 0, 0, 10, null), model('b', 1, 10, 20, null)]).dearestId, null);
    assert.equal(waterfallOf([RUN[0]!, model('a', 0, 0, 10, '0.5')]).dearestId, null);
    assert.equal(waterfallOf([RUN[0]!, model('a', 0, 0, 10, '0.5')]).slowestId, null);
  });

  it('while the root is not written: the execution’s creation to now, its children indented under the pending root', () => {
    const created = at(-200);
    const w = waterfallOf([RUN[2]!, RUN[3]!], { createdAt: created, endMs: T0 + 1800, rootPending: true });
    assert.equal(w.startMs, T0 - 200);
    assert.equal(w.totalMs, 2000);
    assert.equal(w.rootPending, true);
    assert.deepEqual(
      w.rows.map((r) => [r.span.id, r.depth, f(r.offset), f(r.width)]),
      [
        ['m0', 1, 0.15, 0.15],
        ['t0', 2, 0.3, 0.2],
      ],
    );
  });

  it('never draws a bar past the axis, and survives an empty trace', () => {
    const w = waterfallOf([span('root', 'execution', null, 0, 100), span('late', 'tool_call', 'root', 90, 200)]);
    const late = w.rows.find((r) => r.span.id === 'late')!;
    assert.ok(late.offset + late.width <= 1);
    const empty = waterfallOf([]);
    assert.deepEqual(empty.rows, []);
    assert.ok(Number.isFinite(empty.totalMs));
  });

  it('nests a root that joined a caller’s trace (its parent is not in the trace)', () => {
    const w = waterfallOf([span('root', 'execution', 'caller', 0, 100), span('m', 'model_call', 'root', 10, 90)]);
    assert.deepEqual(
      w.rows.map((r) => [r.span.id, r.depth]),
      [
        ['root', 0],
        ['m', 1],
      ],
    );
  });
});

describe('span labels and content', () => {
  it('says the step (1-based) and model of a model call, the tool and MCP server of a tool call', () => {
    assert.deepEqual(spanLabel(RUN[2]!), { title: 'Step 1', detail: 'openai/gpt-4o' });
    assert.deepEqual(spanLabel(span('t', 'tool_call', 'm', 0, 1, { tool: 'docs_search', server: 'docs' })), { title: 'docs_search', detail: 'MCP · docs' });
    assert.deepEqual(spanLabel(RUN[3]!), { title: 'lookup_order', detail: null });
    assert.equal(spanLabel(RUN[1]!).title, 'Queued');
  });

  it('parses recorded content, and keeps a cut value as text with what was cut', () => {
    assert.deepEqual(parseContent('[{"role":"user","content":"hi"}]'), { value: [{ role: 'user', content: 'hi' }], cut: null });
    assert.deepEqual(parseContent('[{"role":"user","content":"hi…[cut: 1200 more bytes]'), { value: '[{"role":"user","content":"hi', cut: 1200 });
    assert.deepEqual(parseContent('plain words'), { value: 'plain words', cut: null });
    assert.equal(attributeText(['stop', 'length']), 'stop, length');
    assert.equal(attributeText(3), '3');
  });
});
