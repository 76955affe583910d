import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SCOPES, isScope, missingScopes, normalizeScopes, scopeSchema, SCOPES } from './scopes';

describe('scopes', () => {
  it('are the nine of docs/api.md ("Keys and scopes"), in its order', () => {
    assert.deepEqual(SCOPES, ['agents:read', 'agents:write', 'agents:execute', 'keys:manage', 'webhooks:manage', 'analytics:read', 'budgets:manage', 'audit:read', 'evals:manage']);
  });

  it('default to every scope but keys:manage, webhooks:manage, budgets:manage, audit:read and evals:manage', () => {
    assert.deepEqual(DEFAULT_SCOPES, ['agents:read', 'agents:write', 'agents:execute', 'analytics:read']);
  });

  it('know their own names only', () => {
    assert.ok(isScope('keys:manage'));
    for (const bad of ['keys:read', 'KEYS:MANAGE', 'admin', '', '*']) {
      assert.equal(isScope(bad), false, bad);
      assert.equal(scopeSchema.safeParse(bad).success, false, bad);
    }
  });

  it('report exactly the requested scopes the holder lacks (no escalation)', () => {
    assert.deepEqual(missingScopes(['agents:read', 'keys:manage'], ['agents:read']), []);
    assert.deepEqual(missingScopes(['agents:read', 'keys:manage'], ['keys:manage', 'webhooks:manage', 'agents:write']), [
      'webhooks:manage',
      'agents:write',
    ]);
    assert.deepEqual(missingScopes([], []), []);
    assert.deepEqual(missingScopes([], ['agents:read']), ['agents:read']);
  });

  it('normalise to table order without duplicates', () => {
    assert.deepEqual(normalizeScopes(['analytics:read', 'agents:read', 'analytics:read', 'keys:manage']), [
      'agents:read',
      'keys:manage',
      'analytics:read',
    ]);
    assert.deepEqual(normalizeScopes([]), []);
  });
});
