import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capped, CONTENT_CAP_BYTES } from './spans';

describe('capped (a span’s content value)', () => {
  it('keeps short values whole: strings as they are, the rest as JSON', () => {
    assert.equal(capped('hello'), 'hello');
    assert.equal(capped({ a: [1, 'b'] }), '{"a":[1,"b"]}');
    assert.equal(capped(undefined), 'null');
  });

  it('cuts a long value to the cap, mark included, on a whole character, and says how much went', () => {
    for (const unit of ['x', 'é', '😀']) {
      const text = unit.repeat(40_000);
      const out = capped(text);
      assert.ok(Buffer.byteLength(out) <= CONTENT_CAP_BYTES, `${unit}: ${Buffer.byteLength(out)} bytes`);
      const [, kept, cut] = /^(.*)…\[cut: (\d+) more bytes\]$/su.exec(out) ?? [];
      assert.ok(kept, `${unit}: marked`);
      assert.equal(kept.replaceAll(unit, ''), '', `${unit}: only whole characters kept`);
      assert.equal(Buffer.byteLength(kept) + Number(cut), Buffer.byteLength(text));
    }
  });
});
