import { and, asc, desc, eq, gt, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { apiKeys, workspaces, type Environment, type Plan } from '../../db/schema';
import type { Actor } from '../auth/actor';
import { ApiError, notFound } from '../errors';
import { newId } from '../ids';
import { paginate, planPage, type Page, type PageParams } from '../pagination';
import { generateKey, hashKey, parseKey } from './format';
import { DEFAULT_SCOPES, missingScopes, normalizeScopes, type Scope } from './scopes';

export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  environment: Environment;
  scopes: Scope[];
  lastUsed: string | null;
  expiresAt: string | null;
  createdAt: string;
}

export interface CreatedKeyView extends Omit<KeyView, 'lastUsed'> {
  key: string;
}

export interface CreateKeyInput {
  name: string;
  environment?: Environment;
  scopes?: Scope[];
  expiresAt?: string;
}

type Row = typeof apiKeys.$inferSelect;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

function view(row: Pick<Row, 'id' | 'name' | 'prefix' | 'environment' | 'scopes' | 'lastUsedAt' | 'expiresAt' | 'createdAt'>): KeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment,
    scopes: row.scopes as Scope[],
    lastUsed: iso(row.lastUsedAt),
    expiresAt: iso(row.expiresAt),
    createdAt: row.createdAt.toISOString(),
  };
}

// ---- verification (the hot path of every /v1 request) ----

export type VerifiedKey = Extract<Actor, { kind: 'key' }>;
export type VerifyResult =
  | { valid: true; key: VerifiedKey }
  | { valid: false; code: 'invalid_api_key' | 'api_key_revoked' | 'api_key_expired' };

// `lastUsed` may lag by up to this long; it costs one write per key per window, not per request.
const LAST_USED_RESOLUTION_MS = 60_000;

const statements = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  const scope = and(
    eq(apiKeys.workspaceId, sql.placeholder('workspaceId')),
    eq(apiKeys.environment, sql.placeholder('environment')),
    isNull(apiKeys.revokedAt),
  );
  const cols = {
    id: apiKeys.id,
    name: apiKeys.name,
    prefix: apiKeys.prefix,
    environment: apiKeys.environment,
    scopes: apiKeys.scopes,
    lastUsedAt: apiKeys.lastUsedAt,
    expiresAt: apiKeys.expiresAt,
    createdAt: apiKeys.createdAt,
  };
  const cursor = sql.placeholder('cursor');
  const take = sql.placeholder('take');
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
    first: db.select(cols).from(apiKeys).where(scope).orderBy(desc(apiKeys.id)).limit(take).prepare('keys_first'),
    older: db
      .select(cols)
      .from(apiKeys)
      .where(and(scope, lt(apiKeys.id, cursor)))
      .orderBy(desc(apiKeys.id))
      .limit(take)
      .prepare('keys_older'),
    newer: db
      .select(cols)
      .from(apiKeys)
      .where(and(scope, gt(apiKeys.id, cursor)))
      .orderBy(asc(apiKeys.id))
      .limit(take)
      .prepare('keys_newer'),
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

/** Checks a presented key. Order: shape and checksum (no I/O), then hash lookup, revoked, expired. */
export async function verifyKey(db: Db, presented: string, now = new Date()): Promise<VerifyResult> {
  if (!parseKey(presented)) return { valid: false, code: 'invalid_api_key' };
  const [row] = await stmts(db).byHash.execute({ hash: hashKey(presented) });
  if (!row) return { valid: false, code: 'invalid_api_key' };
  if (row.revokedAt) return { valid: false, code: 'api_key_revoked' };
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return { valid: false, code: 'api_key_expired' };

  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(apiKeys.id, row.id),
          // Through the column (not a raw sql param): postgres.js cannot bind a bare Date.
          or(isNull(apiKeys.lastUsedAt), lte(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS))),
        ),
      );
  }
  return {
    valid: true,
    key: {
      kind: 'key',
      keyId: row.id,
      workspaceId: row.workspaceId,
      environment: row.environment,
      scopes: row.scopes as Scope[],
      plan: row.plan as Plan,
      customRpm: row.customRpm,
    },
  };
}

// ---- management ----

/** Creates a key. A key may only mint keys in its own environment with scopes it holds. */
export async function createKey(db: Db, actor: Actor, input: CreateKeyInput, now = new Date()): Promise<CreatedKeyView> {
  const environment = input.environment ?? actor.environment;
  const scopes = normalizeScopes(input.scopes ?? DEFAULT_SCOPES);
  if (actor.kind === 'key') {
    if (environment !== actor.environment) {
      throw new ApiError(
        403,
        'environment_mismatch',
        `A ${actor.environment} key can only create ${actor.environment} keys`,
        { param: 'environment' },
      );
    }
    const missing = missingScopes(actor.scopes, scopes);
    if (missing.length > 0) {
      throw new ApiError(
        403,
        'insufficient_scope',
        `This key cannot grant scopes it does not hold: ${missing.join(', ')}`,
        { param: 'scopes' },
      );
    }
  }
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = new Date(input.expiresAt);
    if (expiresAt.getTime() <= now.getTime()) {
      throw new ApiError(400, 'invalid_parameter', "'expiresAt' must be in the future", { param: 'expiresAt' });
    }
  }
  const generated = generateKey(environment);
  const [row] = await db
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
  const { lastUsed: _omit, ...rest } = view(row!);
  return { ...rest, key: generated.key };
}

export async function listKeys(db: Db, actor: Actor, params: PageParams): Promise<Page<KeyView>> {
  const plan = planPage('key', params);
  const s = stmts(db);
  const where = { workspaceId: actor.workspaceId, environment: actor.environment };
  const page = await paginate(plan, {
    fetch: (direction, cursor, take) =>
      cursor === undefined
        ? s.first.execute({ ...where, take })
        : (direction === 'older' ? s.older : s.newer).execute({ ...where, cursor, take: take }),
    exists: async (direction, id) =>
      (await (direction === 'older' ? s.older : s.newer).execute({ ...where, cursor: id, take: 1 })).length > 0,
  });
  return { ...page, data: page.data.map(view) };
}

export async function revokeKey(db: Db, actor: Actor, id: string, now = new Date()) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(
      and(
        eq(apiKeys.id, id),
        eq(apiKeys.workspaceId, actor.workspaceId),
        eq(apiKeys.environment, actor.environment),
        isNull(apiKeys.revokedAt),
      ),
    )
    .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
  if (!row) throw notFound('key', id);
  return { id: row.id, deleted: true as const, revokedAt: row.revokedAt!.toISOString() };
}
