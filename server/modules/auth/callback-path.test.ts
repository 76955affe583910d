import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeCallbackPath } from './callback-path';

describe('safeCallbackPath', () => {
  it('keeps paths on this site', () => {
    assert.equal(safeCallbackPath('/dashboard/keys?x=1#y'), '/dashboard/keys?x=1#y');
    assert.equal(safeCallbackPath(['/docs', '/other']), '/docs');
  });

  it('refuses anything a browser would take to another origin, or that is not a path', () => {
    for (const v of [
      '/\t/evil.example',
      '/%09/evil.example'.replace('%09', '\t'),
      '/\n/evil.example',
      '//evil.example',
      '/\\evil.example',
      '\\/evil.example',
      '/.//evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      ' /dashboard',
      '/dash\u0000board',
      '/x\r\nSet-Cookie: a=b',
      '',
      undefined,
      null,
    ]) {
      assert.equal(safeCallbackPath(v), '/dashboard/keys', JSON.stringify(v));
    }
  });
});
