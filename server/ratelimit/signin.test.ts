import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Database } from '../../db/client';
import { createRateLimits, SIGN_IN_FAILURES } from './index';

// The dashboard's password brute-force guard, on the memory store (embedded mode).
const limits = createRateLimits({ database: { kind: 'pglite' } as Database, anonPerMinute: 100 });

describe('sign-in guard', () => {
  it('blocks an email after 10 failures in the window, case-insensitively', async () => {
    const email = 'Victim@Example.test';
    for (let i = 0; i < SIGN_IN_FAILURES; i++) {
      assert.equal(await limits.signIn.blockedFor(email), 0);
      await limits.signIn.failed(email);
    }
    const wait = await limits.signIn.blockedFor('victim@example.test');
    assert.ok(wait > 14 * 60 && wait <= 15 * 60, `blocked for about 15 minutes, got ${wait}s`);
    assert.equal(await limits.signIn.blockedFor('someone-else@example.test'), 0);
  });

  it('forgets the failures after a successful sign-in', async () => {
    const email = 'forgetful@example.test';
    for (let i = 0; i < SIGN_IN_FAILURES - 1; i++) await limits.signIn.failed(email);
    await limits.signIn.succeeded(email);
    await limits.signIn.failed(email);
    assert.equal(await limits.signIn.blockedFor(email), 0);
  });
});
