import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../../db/client';
import { ApiError, insufficientScope } from '../errors';
import { env } from '../env.js';
import { clientAddress } from '../http/client-address';
import { verifyKey, type VerifiedKey } from '../keys/service';
import type { RateLimits } from '../ratelimit';
import type { Decision } from '../ratelimit/limiter';
import type { RestRoute } from './routes';

// The named steps of a /v1 request, in the order DESIGN.md 3.1 gives: route → authenticate →
// limit → scope → input. Each answers an ApiError (or nothing) and writes only headers.

/** The token of an `Authorization: Bearer <token>` header: undefined without one, null when malformed. */
export function bearer(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

const AUTH_FAILURES = {
  missing: () => new ApiError('missing_api_key', 'No API key provided. Send it as `Authorization: Bearer <key>`'),
  malformed: () => new ApiError('invalid_api_key', 'Malformed Authorization header. Use `Authorization: Bearer <key>`'),
  invalid_api_key: () => new ApiError('invalid_api_key', 'Invalid API key'),
  api_key_revoked: () => new ApiError('api_key_revoked', 'This API key has been revoked'),
  api_key_expired: () => new ApiError('api_key_expired', 'This API key has expired'),
};

const applyHeaders = (res: ServerResponse, decision: Decision) => {
  for (const [k, v] of Object.entries(decision.headers)) res.setHeader(k, v);
};

/**
 * Requests that identify no valid key are limited per client address (a brute-force guard).
 * An address known to be over its limit is refused from memory, before any key lookup: one
 * client cannot make us look up keys faster than its limit allows.
 */
export function createAddressGuard(limits: RateLimits) {
  const blocked = new Map<string, { until: number; headers: Record<string, string> }>();
  const refusal = () => new ApiError('rate_limit_exceeded', 'Too many requests from this address; retry later');

  return {
    /** Refuses from memory when this address was over its limit moments ago (no I/O). */
    peek(req: IncomingMessage, res: ServerResponse): ApiError | null {
      const address = clientAddress(req, env.TRUST_PROXY);
      const entry = blocked.get(address);
      if (!entry) return null;
      const now = Date.now();
      if (entry.until <= now) {
        blocked.delete(address);
        return null;
      }
      for (const [k, v] of Object.entries(entry.headers)) res.setHeader(k, v);
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil((entry.until - now) / 1000))));
      return refusal();
    },
    /** Counts one unidentified request for this address. */
    async charge(req: IncomingMessage, res: ServerResponse): Promise<ApiError | null> {
      const address = clientAddress(req, env.TRUST_PROXY);
      const decision = await limits.forAddress(address);
      applyHeaders(res, decision);
      if (decision.allowed) return null;
      // A few thousand distinct abusive addresses at most are remembered at once.
      if (blocked.size > 10_000) blocked.clear();
      blocked.set(address, { until: Number(decision.headers['X-RateLimit-Reset']) * 1000, headers: decision.headers });
      return refusal();
    },
  };
}

export type AddressGuard = ReturnType<typeof createAddressGuard>;

/** The verified key of the request, or the error to answer (after charging the address). */
export async function authenticate(
  req: IncomingMessage,
  res: ServerResponse,
  db: Db,
  guard: AddressGuard,
): Promise<{ key: VerifiedKey } | { error: ApiError }> {
  const token = bearer(req.headers.authorization);
  const early = guard.peek(req, res);
  if (early) return { error: early };
  let failure: ApiError;
  if (token === undefined) failure = AUTH_FAILURES.missing();
  else if (token === null) failure = AUTH_FAILURES.malformed();
  else {
    const result = await verifyKey(db, token);
    if (result.valid) return { key: result.key };
    failure = AUTH_FAILURES[result.code]();
  }
  return { error: (await guard.charge(req, res)) ?? failure };
}

/** One request against the key's plan (minute and day windows). */
export async function limitKey(res: ServerResponse, limits: RateLimits, key: VerifiedKey): Promise<ApiError | null> {
  const decision = await limits.forKey(key);
  applyHeaders(res, decision);
  return decision.allowed ? null : new ApiError('rate_limit_exceeded', 'Rate limit exceeded for this API key; retry later');
}

export function checkScope(route: RestRoute, key: VerifiedKey): ApiError | null {
  return route.scope && !key.scopes.includes(route.scope) ? insufficientScope(route.scope) : null;
}
