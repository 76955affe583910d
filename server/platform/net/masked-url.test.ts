import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { holdsCredentials, maskUrl, tokenLike } from './masked-url';

describe('maskUrl', () => {
  it('keeps a URL with nothing to hide exactly as given', () => {
    for (const url of ['https://example.com', 'https://Example.com/hooks/agents', 'http://127.0.0.1:4000/hook', 'https://api.example.com/v1/orders/lookup', 'https://x.test/my-very-long-endpoint-name']) {
      assert.equal(maskUrl(url), url);
      assert.equal(holdsCredentials(url), false);
    }
  });

  it('masks the query, the fragment and the user info, keeping the origin and the path', () => {
    assert.equal(maskUrl('https://api.example.com/v1/run?api_token=abc&mode=x'), 'https://api.example.com/v1/run?****');
    assert.equal(maskUrl('https://example.com/a#token=1'), 'https://example.com/a#****');
    assert.equal(maskUrl('https://user:pass@example.com/a'), 'https://****@example.com/a');
    // A bare `?` hides nothing but is not kept either: the URL is then stored sealed, harmlessly.
    assert.equal(maskUrl('https://example.com/a?'), 'https://example.com/a');
  });

  it('masks path segments that look like tokens (Slack, Discord), not the ids beside them', () => {
    assert.equal(maskUrl('https://hooks.slack.com/services/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'), 'https://hooks.slack.com/services/T0AB12CD3/B0EF45GH6/****');
    assert.equal(
      maskUrl('https://discord.com/api/webhooks/112233445566778899/aBcD-eFgH_iJkL1234mNoPqRsTuVwXyZ0987aBcD-eFgH_iJkL1234mNoPqRsTuVwXyZ09'),
      'https://discord.com/api/webhooks/112233445566778899/****',
    );
    assert.equal(maskUrl('https://tools.example.com/t/0f8e1c2a-9b7d-4e6f-8a5b-3c2d1e0f9a8b/run'), 'https://tools.example.com/t/****/run');
  });

  it('tells tokens from names', () => {
    assert.equal(tokenLike('T0AB12CD3'), false, 'short ids stay');
    assert.equal(tokenLike('my-very-long-endpoint-name'), false, 'lower-case words stay');
    assert.equal(tokenLike('0123456789012345'), false, 'a long number stays (an id)');
    assert.equal(tokenLike('Xk4Fh2Lw9QpZr7Tn'), true);
    assert.equal(tokenLike('abcdefabcdef0123'), true, 'hex');
    assert.equal(tokenLike('a'.repeat(32)), true, 'anything of 32 characters');
  });

  it('is **** for what is not a URL', () => {
    assert.equal(maskUrl('not a url'), '****');
  });
});
