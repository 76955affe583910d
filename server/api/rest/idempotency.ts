import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { idempotencyKeys } from '../../../db/schema';
import { canonicalJson } from '../../platform/canonical-json';
import { ApiError } from '../../platform/errors';
import type { VerifiedKey } from '../../modules/keys/service';
import { log } from '../../platform/log';
import { secretsKeyring } from '../../platform/sealed';
import { errorAnswer, json, type Answer } from './answer';

// Idempotency-Key on POST (docs/api.md, "Idempotency"): the first request under a key (per
// workspace and environment) runs and its answer is kept for 24 h; a retry with the same method,
// path and body gets that answer again (`Idempotent-Replayed: true`) and does nothing else. Another
// body or endpoint under the key, or a retry while the first still runs, is 409
// idempotency_conflict. Answers 400, 401, 403 and 429 are not kept: the caller may fix the request
// and retry.
//
// The first request holds the key for LOCK_SECONDS; if its process dies, a retry after that
// takes over. The answer (answer.ts) is stored before the REST handler writes it; a long answer
// (a wait, a stream) is stored as its marker the moment the route returns it, which is as soon
// as its execution exists; a replay turns the marker back into the same kind of answer.
//
// A record belongs to the API key that made it: another key of the workspace presenting the same
// Idempotency-Key gets 409 (it would otherwise receive an answer made for a key with other
// scopes: a new key's secret, a webhook's). And the stored answer is sealed (AES-256-GCM) with a
// key derived from the caller's own API key, so nobody who reads the table can read the secrets
// some answers carry: only a request presenting that API key again opens it (docs/security.md).
// What identifies the request (method, path, body) is kept as a fingerprint keyed with the
// server's secrets key (HMAC-SHA-256), so a reader of the table cannot confirm a guess of a body.

const TTL_SECONDS = 24 * 3600;
const LOCK_SECONDS = 60;
const NOT_KEPT = new Set([400, 401, 403, 429]);
/** Our own failures (5xx) are not kept either: a retry is safe, since routes settle once their work exists. */
const kept = (status: number) => !NOT_KEPT.has(status) && status < 500;

/**
 * 409 for a retry that arrived while the first request still holds its key, with `Retry-After: 1`:
 * the one idempotency conflict worth retrying as it is (the typed client does: docs/sdk.md).
 */
const inProgress = (message: string) => new ApiError('idempotency_conflict', message, { headers: { 'Retry-After': '1' } });

/** The answer again for a stored marker (`{"$stream": id}`, `{"$wait": id}`): the route that stored it knows how. */
export type MarkerReplay = (marker: Record<string, string>, key: VerifiedKey) => Promise<Answer>;

export function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value[0]! : value;
  if (key.length < 1 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new ApiError('invalid_parameter', "'Idempotency-Key' must be 1–255 printable ASCII characters", { param: 'Idempotency-Key' });
  }
  return key;
}

/** The sealing key of one record: HKDF-SHA-256 of the caller's API key, salted with the record's identity. */
function sealingKey(apiKey: string, record: string): Buffer {
  return Buffer.from(hkdfSync('sha256', apiKey, record, 'aas idempotency answer v1', 32));
}

/** `base64url(iv | tag | ciphertext)` of the answer. */
export function seal(apiKey: string, record: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(apiKey, record), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The answer sealed by `seal`, or null when this API key cannot open it. */
export function unseal(apiKey: string, record: string, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(apiKey, record), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** SHA-256 of method, path and the canonical body: what the fingerprint keys (and what one was before it was keyed). */
export function requestDigest(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

/**
 * Whether a stored fingerprint is this request's. Keyed (`<key id>:<HMAC>`) under a key of the
 * keyring: compared; under a key no longer held (it was dropped less than 24 h after a rotation):
 * another request, so a 409 rather than an answer that might be another request's. A bare digest
 * was written by a process of a version before fingerprints were keyed (the start-up keys them).
 */
function sameRequest(stored: string, digest: string): boolean {
  if (/^[0-9a-f]{64}$/.test(stored)) return stored === digest;
  return secretsKeyring().matchesFingerprint(stored, digest) === true;
}

export async function withIdempotency(
  opts: {
    req: IncomingMessage;
    requestId: string;
    db: Db;
    key: VerifiedKey;
    /** The API key as presented (the answer is sealed with a key derived from it). */
    secret: string;
    idempotencyKey: string;
    path: string;
    body: unknown;
    replayMarker: MarkerReplay;
  },
  run: () => Promise<Answer>,
): Promise<Answer> {
  const { db, key } = opts;
  const record = `${key.workspaceId}/${key.environment}/${opts.idempotencyKey}`;
  const digest = requestDigest(opts.req.method ?? '', opts.path, opts.body);
  const fingerprint = secretsKeyring().fingerprint(digest);
  const where = and(
    eq(idempotencyKeys.workspaceId, key.workspaceId),
    eq(idempotencyKeys.environment, key.environment),
    eq(idempotencyKeys.key, opts.idempotencyKey),
  );

  const take = async (): Promise<boolean> => {
    const inserted = await db
      .insert(idempotencyKeys)
      .values({
        workspaceId: key.workspaceId,
        environment: key.environment,
        key: opts.idempotencyKey,
        apiKeyId: key.keyId,
        fingerprint,
        lockedUntil: sql`now() + ${`${LOCK_SECONDS} seconds`}::interval`,
        expiresAt: sql`now() + ${`${TTL_SECONDS} seconds`}::interval`,
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    return inserted.length > 0;
  };

  let owner = await take();
  if (!owner) {
    // An expired record is gone for good; a stale lock (its process died) may be taken over.
    await db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.expiresAt, sql`now()`)));
    owner = await take();
  }
  if (!owner) {
    const [existing] = await db.select().from(idempotencyKeys).where(where);
    if (!existing) throw inProgress('A request with this Idempotency-Key is in progress; retry later');
    if (existing.apiKeyId !== key.keyId) {
      throw new ApiError('idempotency_conflict', 'This Idempotency-Key was already used by another API key of this workspace', { param: 'Idempotency-Key' });
    }
    const differs = !sameRequest(existing.fingerprint, digest);
    const conflict = () =>
      new ApiError('idempotency_conflict', 'This Idempotency-Key was already used with another request body or endpoint', { param: 'Idempotency-Key' });
    if (existing.responseStatus === null) {
      // Still held by the first request: "in progress", whatever this one's body.
      const taken = differs
        ? []
        : await db
            .update(idempotencyKeys)
            .set({ lockedUntil: sql`now() + ${`${LOCK_SECONDS} seconds`}::interval` })
            .where(and(where, isNull(idempotencyKeys.responseStatus), lt(idempotencyKeys.lockedUntil, sql`now()`)))
            .returning({ key: idempotencyKeys.key });
      if (taken.length === 0) {
        const stale = existing.lockedUntil !== null && existing.lockedUntil.getTime() < Date.now();
        if (differs && stale) throw conflict();
        throw inProgress('A request with this Idempotency-Key is still in progress; retry later');
      }
      owner = true;
    } else {
      if (differs) throw conflict();
      const body = unseal(opts.secret, record, existing.responseSealed ?? '');
      if (body === null) throw new ApiError('idempotency_conflict', 'This Idempotency-Key was already used by another API key of this workspace', { param: 'Idempotency-Key' });
      const replayed = { 'Idempotent-Replayed': 'true' };
      const marker = body.startsWith('{"$') ? (JSON.parse(body) as Record<string, string>) : null;
      if (marker && ('$stream' in marker || '$wait' in marker)) {
        const answer = await opts.replayMarker(marker, key);
        return { ...answer, headers: { ...answer.headers, ...replayed } };
      }
      return json(existing.responseStatus, body, replayed);
    }
  }

  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    // An error the route answers (404, 409…) is its answer: kept like any other.
    if (!(err instanceof ApiError)) {
      // Never answered: free the key for a retry.
      await db.delete(idempotencyKeys).where(where).catch(() => {});
      throw err;
    }
    answer = errorAnswer(err, opts.requestId);
  }
  const stored = 'json' in answer ? answer.json : answer.marker;
  try {
    if (stored === undefined || !kept(answer.status)) await db.delete(idempotencyKeys).where(where);
    else await db.update(idempotencyKeys).set({ responseStatus: answer.status, responseSealed: seal(opts.secret, record, stored), lockedUntil: null }).where(where);
  } catch (err) {
    // The answer goes out all the same; a retry finds the record still locked, then takes it over.
    log.error({ err, requestId: opts.requestId }, 'could not store an idempotent response');
  }
  return answer;
}
