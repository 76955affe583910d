import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headerText } from './mail';

describe('headerText', () => {
  it('puts a value on one line of at most max characters', () => {
    assert.equal(headerText('Acme\r\nBcc: x@evil.example'), 'Acme Bcc: x@evil.example');
    assert.equal(headerText('a\u2028b\u0000c\td'), 'a b c d');
    assert.equal(headerText('x'.repeat(300)).length, 200);
    assert.equal(headerText('  plain  '), 'plain');
  });
});
