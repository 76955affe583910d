import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffLines, foldUnchanged, hasChanges, linesOf, MAX_CELLS, type DiffLine } from './line-diff';

/** A diff as text: "  same", "- removed", "+ added". */
const text = (lines: DiffLine[]) => lines.map((l) => `${l.type === 'same' ? ' ' : l.type === 'removed' ? '-' : '+'} ${l.text}`);

describe('diffLines', () => {
  it('splits lines on \\n and \\r\\n; no text has no lines', () => {
    assert.deepEqual(linesOf(null), []);
    assert.deepEqual(linesOf(''), []);
    assert.deepEqual(linesOf('a\r\nb\n'), ['a', 'b', '']);
  });

  it('keeps equal texts unchanged, numbered on both sides', () => {
    const lines = diffLines('a\nb', 'a\nb');
    assert.equal(hasChanges(lines), false);
    assert.deepEqual(lines[1], { type: 'same', text: 'b', oldLine: 2, newLine: 2 });
  });

  it('shows a changed line as removed then added, between the lines both keep', () => {
    assert.deepEqual(text(diffLines('Be kind.\nAnswer at length.\nSign off.', 'Be kind.\nAnswer briefly.\nSign off.')), ['  Be kind.', '- Answer at length.', '+ Answer briefly.', '  Sign off.']);
  });

  it('finds the longest common run of lines in the middle', () => {
    const before = 'a\nb\nc\nd\ne';
    const after = 'a\nx\nc\nd\ny\ne';
    assert.deepEqual(text(diffLines(before, after)), ['  a', '- b', '+ x', '  c', '  d', '+ y', '  e']);
    const numbered = diffLines(before, after).find((l) => l.type === 'added' && l.text === 'y');
    assert.deepEqual(numbered, { type: 'added', text: 'y', newLine: 5 });
  });

  it('adds every line to nothing, and removes every line to nothing', () => {
    assert.deepEqual(text(diffLines(null, 'a\nb')), ['+ a', '+ b']);
    assert.deepEqual(text(diffLines('a\nb', null)), ['- a', '- b']);
  });

  it('a middle too large for the table is every old line removed, then every new one added', () => {
    const side = Math.ceil(Math.sqrt(MAX_CELLS)) + 1;
    const before = Array.from({ length: side }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: side }, (_, i) => `new ${i}`).join('\n');
    const lines = diffLines(`top\n${before}\nend`, `top\n${after}\nend`);
    assert.equal(lines.length, 2 * side + 2);
    assert.equal(lines[1]!.type, 'removed');
    assert.equal(lines[side + 1]!.type, 'added');
    assert.deepEqual(lines.at(-1), { type: 'same', text: 'end', oldLine: side + 2, newLine: side + 2 });
  });
});

describe('foldUnchanged', () => {
  const many = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  it('keeps three lines of context around a change and folds the rest', () => {
    const after = [...many];
    after[9] = 'changed';
    const folded = foldUnchanged(diffLines(many.join('\n'), after.join('\n')));
    const shape = folded.map((l) => (l.type === 'skip' ? `… ${l.count}` : l.type === 'same' ? l.text : `${l.type}: ${l.text}`));
    assert.deepEqual(shape, ['… 6', 'line 7', 'line 8', 'line 9', 'removed: line 10', 'added: changed', 'line 11', 'line 12', 'line 13', '… 7']);
  });

  it('does not fold a single line (a skip would save nothing)', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const after = ['A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'I'];
    const folded = foldUnchanged(diffLines(before.join('\n'), after.join('\n')));
    assert.equal(folded.filter((l) => l.type === 'skip').length, 0);
    const longer = ['A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'x', 'I'];
    const skips = foldUnchanged(diffLines([...before.slice(0, 8), 'x', 'i'].join('\n'), longer.join('\n'))).filter((l) => l.type === 'skip');
    assert.deepEqual(skips, [{ type: 'skip', count: 2 }]);
  });
});
