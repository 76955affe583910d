import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clip, compactJson, expectedDraft, expectedKind, itemCount, parseExpected } from './datasets';

describe('expected answers', () => {
  it('are none, a text or JSON', () => {
    assert.equal(expectedKind(null), 'none');
    assert.equal(expectedKind(undefined), 'none');
    assert.equal(expectedKind(''), 'text');
    assert.equal(expectedKind('Paris'), 'text');
    assert.equal(expectedKind({ a: 1 }), 'json');
    assert.equal(expectedKind([1, 2]), 'json');
  });

  it('start the field as text, or indented JSON with the switch on', () => {
    assert.deepEqual(expectedDraft(null), { text: '', json: false });
    assert.deepEqual(expectedDraft('Paris'), { text: 'Paris', json: false });
    assert.deepEqual(expectedDraft({ a: [1] }), { text: '{\n  "a": [\n    1\n  ]\n}', json: true });
    assert.equal(compactJson({ a: [1, 'b'] }), '{"a":[1,"b"]}');
  });

  it('parse: blank is none, text is kept as typed, JSON must be an object or a list', () => {
    assert.deepEqual(parseExpected({ text: '  \n', json: false }), { ok: true, value: null });
    assert.deepEqual(parseExpected({ text: '', json: true }), { ok: true, value: null });
    assert.deepEqual(parseExpected({ text: ' Paris ', json: false }), { ok: true, value: ' Paris ' });
    assert.deepEqual(parseExpected({ text: '{"city": "Paris"}', json: true }), { ok: true, value: { city: 'Paris' } });
    assert.deepEqual(parseExpected({ text: '[1, 2]', json: true }), { ok: true, value: [1, 2] });
    // Text that looks like JSON stays text with the switch off.
    assert.deepEqual(parseExpected({ text: '{"a": 1}', json: false }), { ok: true, value: '{"a": 1}' });
    const bad = parseExpected({ text: '{city: Paris}', json: true });
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.message : '', /^This is not valid JSON: .+turn JSON off/);
    for (const scalar of ['42', 'true', 'null', '"Paris"']) {
      const r = parseExpected({ text: scalar, json: true });
      assert.equal(r.ok, false, scalar);
      assert.match(!r.ok ? r.message : '', /object \{…\} or a list \[…\]/);
    }
  });
});

describe('clip', () => {
  it('keeps a short text whole', () => {
    assert.deepEqual(clip('short'), { shown: 'short', cut: false });
  });

  it('cuts a long text at a space near its limit', () => {
    const text = 'word '.repeat(100);
    const { shown, cut } = clip(text, { chars: 42, lines: 6 });
    assert.equal(cut, true);
    assert.ok(shown.length <= 42);
    assert.ok(shown.endsWith('word'));
  });

  it('cuts an unbroken text at the limit', () => {
    assert.deepEqual(clip('x'.repeat(50), { chars: 10, lines: 6 }), { shown: 'x'.repeat(10), cut: true });
  });

  it('cuts after its last line', () => {
    assert.deepEqual(clip('a\nb\nc\nd', { chars: 100, lines: 2 }), { shown: 'a\nb', cut: true });
    assert.deepEqual(clip('a\nb', { chars: 100, lines: 2 }), { shown: 'a\nb', cut: false });
  });
});

it('counts items in words', () => {
  assert.equal(itemCount(0), '0 items');
  assert.equal(itemCount(1), '1 item');
  assert.equal(itemCount(1234), '1,234 items');
});
