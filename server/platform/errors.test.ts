import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ERROR_CATALOGUE, ERROR_TYPES, ERRORS, insufficientScope, internalError, notFound } from './errors';

// The error catalogue: one entry per code, from which an ApiError's status and type, the tRPC
// code and the OpenAPI error responses are derived (the tRPC mapping: api/trpc/init.test.ts).

/** docs/api.md, "Errors": the type of each status. */
const TYPE_OF_STATUS: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
};

describe('error catalogue', () => {
  it('has each code once, with a status, a type and a description', () => {
    const codes = ERROR_CATALOGUE.map((e) => e.code);
    assert.equal(new Set(codes).size, codes.length, 'a code is listed twice');
    for (const e of ERROR_CATALOGUE) {
      assert.match(e.code, /^[a-z]+(_[a-z]+)*$/, e.code);
      assert.ok(e.status >= 400 && e.status <= 599, `${e.code}: ${e.status}`);
      assert.ok((ERROR_TYPES as readonly string[]).includes(e.type), `${e.code}: ${e.type}`);
      assert.ok(e.description.length > 10 && e.description.endsWith('.'), `${e.code}: describe it in a sentence`);
      assert.equal(ERRORS[e.code], e);
    }
  });

  it('gives each status the type docs/api.md names', () => {
    for (const e of ERROR_CATALOGUE) assert.equal(e.type, TYPE_OF_STATUS[e.status] ?? 'invalid_request_error', e.code);
  });

  it('holds the codes the next resources need', () => {
    for (const code of ['execution_not_cancellable', 'conversation_busy', 'idempotency_conflict'] as const) {
      assert.equal(ERRORS[code].status, 409);
      assert.equal(ERRORS[code].on, 'declared', `${code} is documented only where a route declares it`);
    }
    assert.equal(ERRORS.unauthenticated.status, 401);
    assert.equal(ERRORS.unauthenticated.on, 'dashboard');
  });
});

describe('ApiError', () => {
  it('takes its status and type from the catalogue', () => {
    for (const e of ERROR_CATALOGUE) {
      const err = new ApiError(e.code, 'message');
      assert.deepEqual([err.code, err.status, err.type], [e.code, e.status, e.type]);
      assert.ok(err instanceof Error);
    }
  });

  it('carries param and headers, and renders the envelope (param only when set)', () => {
    const err = new ApiError('method_not_allowed', 'No', { param: 'x', headers: { Allow: 'GET' } });
    assert.deepEqual(err.headers, { Allow: 'GET' });
    assert.deepEqual(err.toBody('req_1'), {
      error: { type: 'invalid_request_error', code: 'method_not_allowed', message: 'No', param: 'x', requestId: 'req_1' },
    });
    assert.equal('param' in new ApiError('internal_error', 'x').toBody('req_1').error, false);
  });

  it('has helpers for the common cases', () => {
    assert.deepEqual([notFound('key', 'key_1').status, notFound('key', 'key_1').param], [404, 'id']);
    assert.match(notFound('key', 'k'.repeat(500)).message, /^No such key: 'k{64}…'$/);
    assert.equal(insufficientScope('keys:manage').status, 403);
    assert.match(insufficientScope('keys:manage').message, /keys:manage/);
    assert.equal(internalError().status, 500);
  });
});
