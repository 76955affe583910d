import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ApiError, ERROR_CATALOGUE } from '../../platform/errors';
import { toTRPCError, TRPC_CODE } from './init';

// The error catalogue (platform/errors.ts) as tRPC carries it.

describe('tRPC mapping', () => {
  it('maps every code to a tRPC code that tRPC answers with the same HTTP status', () => {
    // Except those the HTTP server answers itself (a request it could not parse): they never
    // travel through tRPC, which has no 431.
    for (const e of ERROR_CATALOGUE.filter((e) => e.on !== 'http')) {
      const trpc = toTRPCError(new ApiError(e.code, 'message'));
      assert.equal(trpc.code, TRPC_CODE[e.status], e.code);
      assert.equal(getHTTPStatusCodeFromError(trpc), e.status, e.code);
      assert.ok(trpc.cause instanceof ApiError && trpc.cause.code === e.code, 'the ApiError travels as the cause');
    }
  });
});
