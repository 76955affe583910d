import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { ScopedTable } from './keyset';
import { ApiError, type ErrorCode } from './errors';
import { advisoryXactLock } from '../../db/advisory';

/**
 * The count and the insert of a resource with a per-environment limit as one step (call in the
 * creating transaction, before the insert): concurrent creates of the same workspace and
 * environment queue on an advisory lock, so none slips past the limit. At the limit: 409 `code`.
 */
export async function assertUnderLimit(
  tx: Db,
  table: ScopedTable,
  owner: { workspaceId: string; environment: string },
  limit: { name: string; max: number; code: Extract<ErrorCode, 'webhook_limit_reached' | 'schedule_limit_reached' | 'budget_limit_reached' | 'dataset_limit_reached'> },
): Promise<void> {
  await advisoryXactLock(tx, sql`hashtext(${`${limit.name}:${owner.workspaceId}:${owner.environment}`})`);
  const [row] = (await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(table)
    .where(and(eq(table.workspaceId, owner.workspaceId), eq(table.environment, owner.environment)))) as [{ n: number }];
  if (row.n >= limit.max) {
    throw new ApiError(limit.code, `This environment already has ${limit.max} ${limit.name}, the most a workspace may have; delete one first`);
  }
}
