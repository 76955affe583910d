import { changesOf, emitAudited } from '../audit/record';
import { GRANTABLE, roleRefusal, type Role } from '../vocabulary/roles';
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { textArray } from '../../../db/rows';
import { apiKeys, workspaces, type Plan } from '../../../db/schema';
import type { Actor } from '../actor';
import { groupedBy } from '../../platform/batches';
import { ApiError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { keysetList, type ListRow } from '../../platform/keyset';
import type { Page, PageParams } from '../../platform/pagination';
import { generateKey } from './format';
import { keptLookupsOf } from './lookup-cache';
import type { createdKeySchema, createKeyInput, keySchema } from './schemas';
import { DEFAULT_SCOPES, missingScopes, normalizeScopes, SCOPES, type Scope } from '../vocabulary/scopes';

/** Boot's switch for kept key lookups on the embedded database (lookup-cache.ts). */
export { keepKeyLookups } from './lookup-cache';

// What the API answers is what schemas.ts documents: the view types are inferred from it.
export type KeyView = z.infer<typeof keySchema>;
export type CreatedKeyView = z.infer<typeof createdKeySchema>;
export type CreateKeyInput = z.infer<typeof createKeyInput>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const keyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  environment: apiKeys.environment,
  scopes: apiKeys.scopes,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
  createdAt: apiKeys.createdAt,
  createdByUserId: apiKeys.createdByUserId,
  createdByKeyId: apiKeys.createdByKeyId,
};

// The active keys of a workspace and environment, newest first (index api_keys_list_idx).
const keyList = keysetList({
  name: 'keys',
  prefix: 'key',
  table: apiKeys,
  columns: keyColumns,
  where: isNull(apiKeys.revokedAt),
});

function view(row: ListRow<typeof keyColumns>): KeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment,
    scopes: row.scopes as Scope[],
    lastUsed: iso(row.lastUsedAt),
    expiresAt: iso(row.expiresAt),
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdByUserId ? { type: 'user', id: row.createdByUserId } : row.createdByKeyId ? { type: 'key', id: row.createdByKeyId } : null,
  };
}

// ---- verification (the hot path of every /v1 request) ----

export type VerifiedKey = Extract<Actor, { kind: 'key' }>;
/** The key a request named even when it may no longer be used: its usage still counts (analytics). */
export interface KeyOwner {
  keyId: string;
  workspaceId: string;
  environment: VerifiedKey['environment'];
}
export type VerifyResult =
  | { valid: true; key: VerifiedKey }
  | { valid: false; code: 'invalid_api_key' }
  | { valid: false; code: 'api_key_revoked' | 'api_key_expired'; owner: KeyOwner };

// `lastUsed` may lag by up to this long; it costs one write per key per window, not per request.
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Sets the key's `lastUsedAt` unless another request did within the resolution. */
export async function touchKey(db: Db, id: string, now: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(apiKeys.id, id),
        // Through the column (not a raw sql param): postgres.js cannot bind a bare Date.
        or(isNull(apiKeys.lastUsedAt), lte(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS))),
      ),
    );
}

const statements = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  return {
    byHash: db
      .select({
        id: apiKeys.id,
        workspaceId: apiKeys.workspaceId,
        environment: apiKeys.environment,
        scopes: apiKeys.scopes,
        expiresAt: apiKeys.expiresAt,
        revokedAt: apiKeys.revokedAt,
        lastUsedAt: apiKeys.lastUsedAt,
        plan: workspaces.plan,
        customRpm: workspaces.customRpm,
      })
      .from(apiKeys)
      .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
      .where(eq(apiKeys.hash, sql.placeholder('hash')))
      .prepare('keys_by_hash'),
  };
}

function stmts(db: Db) {
  let s = statements.get(db);
  if (!s) {
    s = prepare(db);
    statements.set(db, s);
  }
  return s;
}

type KeyRow = Awaited<ReturnType<ReturnType<typeof prepare>['byHash']['execute']>>[number];

/** A key's row by its hash: kept in memory on the embedded database (lookup-cache.ts), else read. */
async function lookUpKey(db: Db, hash: string): Promise<KeyRow | undefined> {
  const kept = keptLookupsOf<KeyRow>(db);
  if (!kept) return (await stmts(db).byHash.execute({ hash }))[0];
  const row = kept.get(hash);
  if (row) return row;
  const generation = kept.generation();
  const [read] = await stmts(db).byHash.execute({ hash });
  if (read) kept.keep(hash, read, generation);
  return read;
}

/**
 * Checks a key by its hash (`hashKey` of a key whose shape and checksum `parseKey` accepted: the
 * caller checks those without I/O first, server/api/rest/steps.ts). Order: lookup, revoked, expired.
 */
export async function verifyKey(db: Db, hash: string, now = new Date()): Promise<VerifyResult> {
  const row = await lookUpKey(db, hash);
  if (!row) return { valid: false, code: 'invalid_api_key' };
  const owner = { keyId: row.id, workspaceId: row.workspaceId, environment: row.environment };
  if (row.revokedAt) return { valid: false, code: 'api_key_revoked', owner };
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return { valid: false, code: 'api_key_expired', owner };

  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await touchKey(db, row.id, now);
    // A kept row (lookup-cache.ts) is this object: the next request sees the touch too.
    row.lastUsedAt = now;
  }
  return {
    valid: true,
    key: {
      kind: 'key',
      keyId: row.id,
      workspaceId: row.workspaceId,
      environment: row.environment,
      // A copy: the row may be kept for the next request (lookup-cache.ts).
      scopes: [...row.scopes] as Scope[],
      plan: row.plan as Plan,
      customRpm: row.customRpm,
    },
  };
}

const lookUps = new WeakMap<Db, (hash: string, item: null) => Promise<VerifyResult>>();

/**
 * `verifyKey`, with the lookups of a hash asked for while one of it is under way made together,
 * in one (platform/batches.ts `groupedBy`): a key's burst of requests reads its row a few times,
 * not once each, and every answer is read after its request arrived. Each caller gets a key of
 * its own.
 */
export function verifyKeyGrouped(db: Db, hash: string): Promise<VerifyResult> {
  let run = lookUps.get(db);
  if (!run) {
    run = groupedBy(async (h: string, calls: null[]) => {
      const result = await verifyKey(db, h);
      return calls.map((_, i) => (i === 0 || !result.valid ? result : { valid: true as const, key: { ...result.key } }));
    });
    lookUps.set(db, run);
  }
  return run(hash, null);
}

// ---- management ----

/** A key may live at most this long (a later `expiresAt` is a mistake, or a year-275760 probe). */
export const MAX_KEY_LIFETIME_YEARS = 10;

/** `expiresAt` as a date in the future, at most 10 years ahead; anything else is invalid_parameter. */
function parseExpiry(value: string, now: Date): Date {
  const invalid = (why: string) => new ApiError('invalid_parameter', `'expiresAt' ${why}`, { param: 'expiresAt' });
  const at = new Date(value);
  // The format check lets through impossible dates and offsets (2030-02-30, +99:99): Date cannot read them.
  if (Number.isNaN(at.getTime()) || !sameDayExists(value)) throw invalid('is not a valid date and time');
  if (at.getTime() <= now.getTime()) throw invalid('must be in the future');
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_KEY_LIFETIME_YEARS);
  if (at.getTime() > latest.getTime()) throw invalid(`must be within ${MAX_KEY_LIFETIME_YEARS} years`);
  return at;
}

/** Whether the calendar date written in an ISO string exists (JavaScript rolls 02-30 over to 03-02). */
function sameDayExists(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Creates a key. A key may only mint keys in its own environment with scopes it holds. */
/** What a key's audit records show of it (never its secret or hash). */
const KEY_AUDITED = ['name', 'environment', 'scopes', 'expiresAt'] as const;

export async function createKey(db: Db, actor: Actor, input: CreateKeyInput, now = new Date()): Promise<CreatedKeyView> {
  const environment = input.environment ?? actor.environment;
  const scopes = normalizeScopes(input.scopes ?? DEFAULT_SCOPES);
  if (actor.kind === 'user') {
    // A key never holds a scope its creator's role could not grant (docs/teams.md).
    const beyond = missingScopes(GRANTABLE[actor.role], scopes);
    if (beyond.length > 0) throw new ApiError('insufficient_role', roleRefusal(actor.role, `grant ${beyond.join(', ')}: ${actor.role === 'viewer' ? 'viewers make no keys' : 'developers grant agents:*, analytics:read and evals:manage only'}`), { param: 'scopes' });
  }
  if (actor.kind === 'key') {
    if (environment !== actor.environment) {
      throw new ApiError('environment_mismatch', `A ${actor.environment} key can only create ${actor.environment} keys`, {
        param: 'environment',
      });
    }
    const missing = missingScopes(actor.scopes, scopes);
    if (missing.length > 0) {
      throw new ApiError('insufficient_scope', `This key cannot grant scopes it does not hold: ${missing.join(', ')}`, {
        param: 'scopes',
      });
    }
  }
  const expiresAt = input.expiresAt === undefined ? null : parseExpiry(input.expiresAt, now);
  const generated = generateKey(environment);
  // The key and its `key.created` event commit together (the event carries the key's view, never its secret).
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: newId('key'),
        workspaceId: actor.workspaceId,
        environment,
        name: input.name,
        prefix: generated.prefix,
        hash: generated.hash,
        scopes,
        expiresAt,
        createdAt: now,
        createdByUserId: actor.kind === 'user' ? actor.userId : null,
        createdByKeyId: actor.kind === 'key' ? actor.keyId : null,
      })
      .returning();
    const shown = view(row!);
    await emitAudited(tx, { workspaceId: actor.workspaceId, environment }, 'key.created', shown, actor, { action: 'key.created', target: { type: 'key', id: shown.id }, environment, changes: changesOf(null, shown, KEY_AUDITED) });
    const { lastUsed: _omit, ...rest } = shown;
    return { ...rest, key: generated.key };
  });
}

export async function listKeys(db: Db, actor: Actor, params: PageParams): Promise<Page<KeyView>> {
  const page = await keyList.page(db, actor, params);
  return { ...page, data: page.data.map(view) };
}

/** Revokes a key and writes its `key.revoked` event, in one transaction. */
export async function revokeKey(db: Db, actor: Actor, id: string, now = new Date()) {
  // A member revokes only keys their role could have made (a developer, not an admin's key).
  const grantable = actor.kind === 'user' ? GRANTABLE[actor.role] : null;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(
        and(
          eq(apiKeys.id, id),
          eq(apiKeys.workspaceId, actor.workspaceId),
          eq(apiKeys.environment, actor.environment),
          isNull(apiKeys.revokedAt),
          grantable ? sql`${apiKeys.scopes} <@ ${textArray(grantable)}` : undefined,
        ),
      )
      .returning();
    if (!row && grantable && grantable.length < SCOPES.length) {
      const [exists] = await tx.select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.workspaceId, actor.workspaceId), eq(apiKeys.environment, actor.environment), isNull(apiKeys.revokedAt)));
      if (exists) throw new ApiError('insufficient_role', roleRefusal((actor as { role: Role }).role, 'revoke a key holding scopes your role cannot grant'));
    }
    if (!row) throw notFound('key', id);
    const shown = view(row);
    await emitAudited(tx, actor, 'key.revoked', shown, actor, { action: 'key.revoked', target: { type: 'key', id: row.id }, changes: { revokedAt: [null, row.revokedAt!.toISOString()] } });
    return { id: row.id, deleted: true as const, revokedAt: row.revokedAt!.toISOString() };
  });
}

/** A key as the API shows it, by id (revoked or not): what a `key.usage_spike` event carries. */
export async function keyViewById(db: Db, id: string): Promise<KeyView | null> {
  const [row] = await db.select(keyColumns).from(apiKeys).where(eq(apiKeys.id, id));
  return row ? view(row) : null;
}
