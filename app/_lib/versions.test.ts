import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasChanges, type DiffLine } from './line-diff';
import { authorOf, canonicalJson, compareConfigs, labelMovesOf, labelProblem, labelsAt, productionBefore, sortedLabels, type LabelMove } from './versions';
import type { AgentVersionConfig } from './types';

/** A diff as text: "  same", "- removed", "+ added". */
const text = (lines: DiffLine[]) => lines.map((l) => `${l.type === 'same' ? ' ' : l.type === 'removed' ? '-' : '+'} ${l.text}`);

const config = (over: Partial<AgentVersionConfig> = {}): AgentVersionConfig => ({
  model: 'sandbox/echo',
  instructions: 'Be kind.',
  tools: [],
  temperature: null,
  maxSteps: 5,
  timeoutSeconds: 60,
  maxTotalTokens: null,
  approvalTimeoutSeconds: 86_400,
  traceContent: false,
  outputSchema: null,
  ...over,
});

const http = (name: string, url = 'https://example.com/x') => ({ type: 'http' as const, name, description: 'd', url, method: 'POST' as const, parameters: { type: 'object' }, approval: 'never' as const });

describe('compareConfigs', () => {
  it('marks the fields that changed, in words', () => {
    const { fields, instructions } = compareConfigs(config(), config({ model: 'sandbox/slow', temperature: 0.2, maxTotalTokens: 1000, traceContent: true }));
    const changed = fields.filter((f) => f.changed).map((f) => [f.label, f.before, f.after]);
    assert.deepEqual(changed, [
      ['Model', 'sandbox/echo', 'sandbox/slow'],
      ['Temperature', 'Model default', '0.2'],
      ['Max tokens per run', 'No limit', '1,000'],
      ['Content in traces', 'Not recorded', 'Recorded'],
    ]);
    assert.equal(fields.find((f) => f.field === 'maxSteps')!.changed, false);
    assert.equal(hasChanges(instructions), false);
  });

  it('compares tools by name as JSON: added, removed, changed, the same', () => {
    const before = config({ tools: [http('lookup'), http('refund'), http('gone')] });
    const after = config({ tools: [http('refund', 'https://example.com/y'), http('lookup'), http('new')] });
    const tools = compareConfigs(before, after).tools;
    assert.deepEqual(
      tools.map((t) => [t.name, t.status]),
      [
        ['refund', 'changed'],
        ['lookup', 'same'],
        ['new', 'added'],
        ['gone', 'removed'],
      ],
    );
    const refund = tools[0]!;
    assert.deepEqual(text(refund.lines.filter((l) => l.type !== 'same')), ['-   "url": "https://example.com/x"', '+   "url": "https://example.com/y"']);
  });

  it('does not call a tool changed for its keys in another order', () => {
    const reordered = { approval: 'never' as const, url: 'https://example.com/x', type: 'http' as const, name: 'lookup', method: 'POST' as const, parameters: { type: 'object' }, description: 'd' };
    assert.equal(compareConfigs(config({ tools: [http('lookup')] }), config({ tools: [reordered] })).tools[0]!.status, 'same');
    assert.equal(canonicalJson({ b: 1, a: { d: 2, c: [3] } }), '{\n  "a": {\n    "c": [\n      3\n    ],\n    "d": 2\n  },\n  "b": 1\n}');
  });
});

describe('labels', () => {
  const labels = { staging: 2, production: 3, canary: 3 };
  it('production first, then by name; the labels of one version', () => {
    assert.deepEqual(sortedLabels(labels).map(([l]) => l), ['production', 'canary', 'staging']);
    assert.deepEqual(labelsAt(labels, 3), ['production', 'canary']);
    assert.deepEqual(labelsAt(labels, 1), []);
  });

  it('checks a new label as the server does', () => {
    assert.equal(labelProblem('', labels), 'Name the label.');
    for (const bad of ['Staging', 'my_label', 'é', 'a'.repeat(41), 'two words']) assert.match(labelProblem(bad, labels)!, /lower-case/);
    assert.match(labelProblem('staging', labels)!, /already has/);
    assert.equal(labelProblem('eu-canary-2', labels), null);
    const full = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`l${i}`, 1]));
    assert.match(labelProblem('one-more', full)!, /at most 20/);
  });

  it('names who made a version', () => {
    assert.equal(authorOf({ type: 'user', id: 'usr_1', email: 'ann@example.com' }), 'ann@example.com');
    assert.equal(authorOf({ type: 'key', id: 'key_1', prefix: 'sk_live_ab12' }), 'key sk_live_ab12…');
    assert.equal(authorOf({ type: 'system' }), 'the service');
  });
});

describe('productionBefore', () => {
  const t = (minute: number) => `2026-11-29T10:${String(minute).padStart(2, '0')}:00.000Z`;
  const versions = (...minutes: number[]) => minutes.map((m, i) => ({ version: i + 1, createdAt: t(m) }));
  const move = (minute: number, before: LabelMove['before'], after: LabelMove['after']): LabelMove => ({ at: t(minute), before, after });

  it('following the latest: the version before the newest', () => {
    assert.equal(productionBefore(3, [], versions(0, 5, 10)), 2);
  });

  it('with one version, nothing came before', () => {
    assert.equal(productionBefore(1, [], versions(0)), null);
  });

  it('after a roll back: the version it was moved from (an undo)', () => {
    assert.equal(productionBefore(1, [move(20, 'latest', 1)], versions(0, 5, 10)), 3);
    assert.equal(productionBefore(2, [move(20, 3, 2)], versions(0, 5, 10)), 3);
  });

  it('a version made while production is pinned changes nothing; following again does', () => {
    // Pinned to 1 at :20, version 3 made at :30 (production still 1), following again at :40 (→ 3).
    const moves = [move(20, 'latest', 1), move(40, 1, 'latest')];
    assert.equal(productionBefore(3, moves, versions(0, 5, 30)), 1);
    // Pinned to 1 at :20, following again at :30 (→ 2), version 3 at :40 (→ 3): before it, 2.
    assert.equal(productionBefore(3, [move(20, 'latest', 1), move(30, 1, 'latest')], versions(0, 5, 40)), 2);
  });

  it('a move that changed nothing is passed over', () => {
    // Moved to 2 by number while it followed the latest (2): the change before that was version 2 itself.
    assert.equal(productionBefore(2, [move(20, 'latest', 2)], versions(0, 5)), 1);
  });

  it('history that does not end where production is: unknown', () => {
    assert.equal(productionBefore(2, [], versions(0, 5, 10)), null);
  });

  it('reads production’s moves from audit records, other labels and malformed ones left out', () => {
    const events: { createdAt: string; changes: Record<string, [unknown, unknown]> | null }[] = [
      { createdAt: t(1), changes: { 'labels.production': ['latest', 2] } },
      { createdAt: t(2), changes: { 'labels.staging': [null, 1] } },
      { createdAt: t(3), changes: { 'labels.production': [2, 'nonsense'] } },
      { createdAt: t(4), changes: null },
    ];
    assert.deepEqual(labelMovesOf(events), [{ at: t(1), before: 'latest', after: 2 }]);
  });
});
