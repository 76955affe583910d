import type { Db } from '../../../db/client';
import type { Actor } from '../actor';
import { getWorkspace } from '../auth/users';
import { ApiError } from '../../platform/errors';
import type { RateLimits } from '.';

// The dashboard's mutations under the plan limits REST has (docs/decisions.md, "Dashboard"):
// one counter per workspace and environment, as a key is one workspace and environment.

type UserActor = Extract<Actor, { kind: 'user' }>;

/** Counts one dashboard mutation; the 429 to answer when the plan's minute or day is used up. */
export async function chargeDashboardMutation(limits: RateLimits, db: Db, actor: UserActor): Promise<ApiError | null> {
  // Read on every mutation, as a key's plan is: a plan change applies on the next request.
  const workspace = await getWorkspace(db, actor.workspaceId);
  const decision = await limits.forDashboard(actor.workspaceId, actor.environment, workspace?.plan ?? 'starter', workspace?.customRpm ?? null);
  if (decision.allowed) return null;
  return new ApiError(
    'rate_limit_exceeded',
    `Your plan's rate limit for ${actor.environment} changes in this workspace is reached; try again in ${wait(Number(decision.headers['Retry-After'] ?? 1))}`,
    { headers: decision.headers },
  );
}

/** Counts one call of a costly dashboard query by its user; the 429 to answer past its limit. */
export async function chargeCostlyQuery(limits: RateLimits, actor: UserActor, costly: { name: string; perMinute: number }): Promise<ApiError | null> {
  const decision = await limits.forUserCall(costly.name, actor.userId, costly.perMinute);
  if (decision.allowed) return null;
  return new ApiError('rate_limit_exceeded', `Too many ${costly.name} requests (at most ${costly.perMinute} a minute); try again in ${wait(Number(decision.headers['Retry-After'] ?? 1))}`, {
    headers: decision.headers,
  });
}

/** A wait as people read it: 45 seconds, 3 minutes, 20 hours. */
function wait(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7_200) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3_600)} hours`;
}
