import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../../../db/client';
import { ApiError, insufficientScope } from '../../platform/errors';
import { holdsScope } from '../../modules/vocabulary/scopes';
import { clientAddress } from '../../platform/http/client-address';
import { hashKey, parseKey } from '../../modules/keys/format';
import { verifyKeyGrouped, type KeyOwner, type VerifiedKey, type VerifyResult } from '../../modules/keys/service';
import { verifyKeyCharged } from '../../modules/keys/verify-charged';
import type { UnknownKeys } from '../../modules/keys/unknown-keys';
import type { RateLimits } from '../../modules/ratelimit';
import type { Decision } from '../../platform/ratelimit/limiter';
import type { RestRoute } from './routes';

// The named steps of a /v1 request, in the order docs/api.md gives ("Order of checks"): route →
// authenticate → limit → scope → input. Each answers an ApiError (or nothing) and writes only
// headers.

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
 * An address known to be over its limit is refused from memory. The guard is asked only once a
 * request is known to carry no valid key: a valid key is never refused or counted here, whatever
 * other requests from its address did (docs/decisions.md, "Per-address guard").
 */
export function createAddressGuard(limits: RateLimits) {
  const blocked = new Map<string, { until: number; headers: Record<string, string> }>();
  const refusal = () => new ApiError('rate_limit_exceeded', 'Too many requests from this address; retry later');

  /** Refuses from memory when this address was over its limit moments ago (no I/O). */
  function peek(address: string, res: ServerResponse): ApiError | null {
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
  }

  /** Counts one unidentified request for this address. */
  async function charge(address: string, res: ServerResponse): Promise<ApiError | null> {
    const decision = await limits.forAddress(address);
    applyHeaders(res, decision);
    if (decision.allowed) return null;
    // A few thousand distinct abusive addresses at most are remembered at once.
    if (blocked.size > 10_000) blocked.clear();
    blocked.set(address, { until: Number(decision.headers['X-RateLimit-Reset']) * 1000, headers: decision.headers });
    return refusal();
  }

  return {
    /** One request that carries no valid key: refused (429) when its address is over the limit. */
    async check(req: IncomingMessage, res: ServerResponse): Promise<ApiError | null> {
      const address = clientAddress(req);
      return peek(address, res) ?? (await charge(address, res));
    },
  };
}

export type AddressGuard = ReturnType<typeof createAddressGuard>;

/**
 * Who a request is: its verified key (with its request already counted, `counted`, when the
 * rate-limit store does both in one statement), or the 401 it would get (with the key, when
 * revoked or expired).
 */
export type Identity = { key: VerifiedKey; counted?: Decision } | { failure: ApiError; owner?: KeyOwner };

/**
 * Identifies the key of a request. The database is asked only about a key that could be valid:
 * a missing or malformed header, a bad shape or checksum (server/modules/keys/format.ts) and a key the
 * database did not know moments ago (unknown-keys.ts) are refused without I/O.
 */
export async function identify(req: IncomingMessage, db: Db, unknownKeys: UnknownKeys, limits?: RateLimits): Promise<Identity> {
  const token = bearer(req.headers.authorization);
  if (token === undefined) return { failure: AUTH_FAILURES.missing() };
  if (token === null) return { failure: AUTH_FAILURES.malformed() };
  if (!parseKey(token)) return { failure: AUTH_FAILURES.invalid_api_key() };
  const hash = hashKey(token);
  if (unknownKeys.has(hash)) return { failure: AUTH_FAILURES.invalid_api_key() };
  const { result, counted } = await lookUp(db, hash, limits);
  if (result.valid) return counted ? { key: result.key, counted } : { key: result.key };
  if (result.code === 'invalid_api_key') {
    unknownKeys.add(hash);
    return { failure: AUTH_FAILURES.invalid_api_key() };
  }
  return { failure: AUTH_FAILURES[result.code](), owner: result.owner };
}

/** The key of a hash, looked up and charged in one statement when the store can (keys/verify-charged.ts). */
async function lookUp(db: Db, hash: string, limits?: RateLimits): Promise<{ result: VerifyResult; counted?: Decision | null }> {
  if (limits?.lookUpAndChargeKey) {
    try {
      const { result, decision } = await verifyKeyCharged(db, hash, limits.lookUpAndChargeKey);
      return { result, counted: decision };
    } catch {
      // The two statements instead: the lookup answers (or fails) as without the store, and the
      // store's own charge counts in memory while it is unreachable. Not logged here, on every
      // request: the store's health logs the outage once (platform/ratelimit/health.ts).
    }
  }
  return { result: await verifyKeyGrouped(db, hash) };
}

/** The verified key of the request, or the error to answer (after charging the address). */
export async function authenticate(
  req: IncomingMessage,
  res: ServerResponse,
  db: Db,
  guard: AddressGuard,
  unknownKeys: UnknownKeys,
  limits?: RateLimits,
): Promise<{ key: VerifiedKey; counted?: Decision } | { error: ApiError; owner?: KeyOwner }> {
  const identity = await identify(req, db, unknownKeys, limits);
  if ('key' in identity) return identity;
  return { error: (await guard.check(req, res)) ?? identity.failure, owner: identity.owner };
}

/** One request against the key's plan (minute and day windows); `counted`: already counted at its lookup. */
export async function limitKey(res: ServerResponse, limits: RateLimits, key: VerifiedKey, counted?: Decision): Promise<ApiError | null> {
  const decision = counted ?? (await limits.forKey(key));
  applyHeaders(res, decision);
  return decision.allowed ? null : new ApiError('rate_limit_exceeded', 'Rate limit exceeded for this API key; retry later');
}

export function checkScope(route: RestRoute, key: VerifiedKey): ApiError | null {
  return route.scope && !holdsScope(key.scopes, route) ? insufficientScope(route.scope, route.alsoScope) : null;
}
