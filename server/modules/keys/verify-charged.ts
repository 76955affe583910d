import type { Db } from '../../../db/client';
import type { Plan } from '../../../db/schema';
import type { Decision } from '../../platform/ratelimit/limiter';
import type { LookedUpRow } from '../../platform/ratelimit/store';
import type { Scope } from '../vocabulary/scopes';
import { LAST_USED_RESOLUTION_MS, touchKey, type KeyOwner, type VerifyResult } from './service';

// A key's verification and its request's charge against its plan's limits in one statement,
// for the PostgreSQL rate-limit store (no Redis): one round trip and one statement fewer on every
// API request (docs/api.md, "Rate limits"). The answer is `verifyKey`'s: the same lookup by
// hash, the same order (unknown, revoked, expired), `lastUsedAt` written as rarely; only a key
// that may be used is counted, by the same rules as the store's `chargeKey`. The key's state is
// read on the database's clock, the one that decides its windows.

/** The lookup (`KeyCharge`'s contract): the key of hash $1 with its workspace's plan, and whether to count it. */
const LOOKUP = `select k.id, k.workspace_id, k.environment, k.scopes, w.plan, w.custom_rpm,
    k.revoked_at is not null as revoked, coalesce(k.expires_at <= now(), false) as expired,
    coalesce(k.last_used_at > now() - interval '${LAST_USED_RESOLUTION_MS} milliseconds', false) as fresh,
    k.revoked_at is null and coalesce(k.expires_at > now(), true) as charge
  from api_keys k join workspaces w on w.id = k.workspace_id where k.hash = $1`;

interface Row extends LookedUpRow {
  id: string;
  workspace_id: string;
  environment: KeyOwner['environment'];
  scopes: string[];
  plan: Plan;
  custom_rpm: number | null;
  revoked: boolean;
  expired: boolean;
  fresh: boolean;
}

/**
 * Runs `lookup` — a select of at most one row by `$1` with the columns `id`, `plan`, `custom_rpm`
 * and `charge` — and counts the request of the row found when `charge` is true, in one statement
 * (the rate limits' `lookUpAndChargeKey`, server/modules/ratelimit/index.ts).
 */
export type KeyCharge = <R extends LookedUpRow>(lookup: string, param: string) => Promise<{ row: R; decision: Decision | null } | null>;

/** `verifyKey`, and the request of a valid key counted (`decision`: null when it was not). */
export async function verifyKeyCharged(db: Db, hash: string, charge: KeyCharge): Promise<{ result: VerifyResult; decision: Decision | null }> {
  const found = await charge<Row>(LOOKUP, hash);
  if (!found) return { result: { valid: false, code: 'invalid_api_key' }, decision: null };
  const { row, decision } = found;
  const owner = { keyId: row.id, workspaceId: row.workspace_id, environment: row.environment };
  if (row.revoked) return { result: { valid: false, code: 'api_key_revoked', owner }, decision: null };
  if (row.expired) return { result: { valid: false, code: 'api_key_expired', owner }, decision: null };
  if (!row.fresh) await touchKey(db, row.id, new Date());
  const key = { kind: 'key' as const, ...owner, scopes: row.scopes as Scope[], plan: row.plan, customRpm: row.custom_rpm };
  return { result: { valid: true, key }, decision };
}
