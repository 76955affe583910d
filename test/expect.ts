import assert from 'node:assert/strict';
import { ERRORS, type ErrorCode } from '../server/platform/errors';
import type { ApiResponse, ErrorBody } from './harness';

// Assertions on what a client of the API sees: status, the error envelope, the headers.

export const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  431: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
};

/** The request id header is present, well-formed, and (for errors) the same as error.requestId. */
export function expectRequestId(res: ApiResponse<unknown>): string {
  const id = res.headers.get('x-request-id');
  assert.ok(id, 'X-Request-Id header missing');
  assert.match(id, REQUEST_ID);
  return id;
}

/**
 * The response is the error envelope `{error:{type,code,message,param?,requestId}}` with this
 * status and code; `param` is checked when given (`null`: must be absent).
 */
export function expectError(
  res: ApiResponse<unknown>,
  status: number,
  code: ErrorCode,
  param?: string | null,
): ErrorBody['error'] {
  assert.equal(ERRORS[code].status, status, `the catalogue gives ${code} the status ${ERRORS[code].status}`);
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = res.body as ErrorBody;
  assert.deepEqual(Object.keys(body), ['error'], `envelope: ${res.text}`);
  const { error } = body;
  const allowed = ['type', 'code', 'message', 'param', 'requestId'];
  for (const k of Object.keys(error)) assert.ok(allowed.includes(k), `unexpected error field '${k}'`);
  assert.equal(error.code, code, res.text);
  assert.equal(error.type, TYPE_BY_STATUS[status]);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace in messages');
  assert.equal(error.requestId, expectRequestId(res));
  if (param === null) assert.equal(error.param, undefined, 'param must be absent');
  else if (param !== undefined) assert.equal(error.param, param, res.text);
  return error;
}

export function expectStatus(res: ApiResponse<unknown>, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  expectRequestId(res);
}

export interface RateHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

/** The X-RateLimit-* headers: integers, Reset in Unix seconds a little ahead (never ms). */
export function rateHeaders(res: ApiResponse<unknown>): RateHeaders {
  const read = (name: string) => {
    const v = res.headers.get(name);
    assert.ok(v !== null, `${name} header missing (status ${res.status})`);
    assert.match(v, /^\d+$/, `${name} is not an integer: ${v}`);
    return Number(v);
  };
  const h = { limit: read('x-ratelimit-limit'), remaining: read('x-ratelimit-remaining'), reset: read('x-ratelimit-reset') };
  const now = Date.now() / 1000;
  assert.ok(h.reset > now && h.reset <= now + 61, `X-RateLimit-Reset ${h.reset} is not Unix seconds within a minute of ${now}`);
  assert.ok(h.remaining <= h.limit);
  return h;
}
