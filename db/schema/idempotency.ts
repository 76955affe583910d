import { sql, type SQL } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, text, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { ENVIRONMENTS } from './columns';
import { ts } from './columns';

/** A record whose fingerprint is a bare digest, not keyed yet (like `unsealedAgent`, agents.ts): index `idempotency_keys_unkeyed_idx`. */
export const unkeyedFingerprint = (t: { fingerprint: AnyPgColumn }): SQL => sql`strpos(${t.fingerprint}, ':') = 0`;

// Idempotency-Key records (docs/api.md, "Idempotency"): one per workspace + environment +
// header value, `in_progress` while the first request runs, then its stored answer for 24 h.
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    workspaceId: text('workspace_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    key: text('key').notNull(),
    // The API key that made the first request: only it gets the stored answer back.
    apiKeyId: text('api_key_id').notNull(),
    // HMAC-SHA-256, under a key derived from SECRETS_KEY, of the SHA-256 of method, path and the
    // canonical JSON body (`<key id>:<hex>`): another request under the same key is a conflict.
    fingerprint: text('fingerprint').notNull(),
    // Until then the first request holds the key; after it (a crashed process) a retry may take over.
    lockedUntil: ts('locked_until'),
    responseStatus: integer('response_status'),
    // The answer, sealed (AES-256-GCM) with a key derived from the caller's API key: readable
    // only by a request that presents that key again (server/api/rest/idempotency.ts).
    responseSealed: text('response_sealed'),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.environment, t.key] }),
    index('idempotency_keys_unkeyed_idx').on(t.workspaceId, t.environment, t.key).where(unkeyedFingerprint(t)),
  ],
);
