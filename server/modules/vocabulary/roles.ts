import type { MemberRole } from '../../../db/schema/values';
import { SCOPES, type Scope } from './scopes';

// What each role in a workspace may do (docs/teams.md), checked on the server for every dashboard
// procedure (server/api/trpc/init.ts `apiProcedure`) and by the members' own procedures. A
// procedure is described by the key scope its REST face needs (`meta.scope`, `meta.alsoScope`)
// and whether it reads (query) or changes (mutation):
//   owner      everything, owners included;
//   admin      everything but making, demoting or removing owners;
//   developer  agents, executions, conversations, schedules, approvals (agents:*), usage and
//              budgets' reads (analytics:read), datasets, experiments and eval rules (evals:manage),
//              keys holding at most agents:*, analytics:read and evals:manage,
//              and webhooks and events read-only;
//   viewer     reads only, never a key (nor the audit log, which is for owners and admins).

export type Role = MemberRole;

/** The key scopes a member of each role may put on a key (and the keys they may revoke hold no other). */
export const GRANTABLE: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES,
  developer: ['agents:read', 'agents:write', 'agents:execute', 'analytics:read', 'evals:manage'],
  viewer: [],
};

const DEVELOPER: readonly Scope[] = [...GRANTABLE.developer, 'keys:manage'];
/** What a viewer never reads: keys (even their prefixes) and the audit log. */
const NOT_FOR_VIEWERS: readonly Scope[] = ['keys:manage', 'audit:read'];

/** Whether a member of `role` may call a procedure needing `need` (a query reads, a mutation changes). */
export function roleAllows(role: Role, need: { scope?: Scope; alsoScope?: Scope }, type: 'query' | 'mutation' | 'subscription'): boolean {
  if (!need.scope || role === 'owner' || role === 'admin') return true;
  if (role === 'developer') {
    if (DEVELOPER.includes(need.scope) || (need.alsoScope !== undefined && DEVELOPER.includes(need.alsoScope))) return true;
    return type === 'query' && need.scope === 'webhooks:manage';
  }
  return type === 'query' && !NOT_FOR_VIEWERS.includes(need.scope);
}

/** Who may manage members: owners and admins; only owners make, demote or remove owners. */
export const managesMembers = (role: Role) => role === 'owner' || role === 'admin';

/** Whether a member of `granter`'s role may invite someone as, or make someone, `role`. */
export const mayGrant = (granter: Role, role: Role) => managesMembers(granter) && (role !== 'owner' || granter === 'owner');

const RANK: Record<Role, number> = { owner: 3, admin: 2, developer: 1, viewer: 0 };
/** Whether going from `from` to `to` takes rights away (owner → admin → developer → viewer). */
export const isDemotion = (from: Role, to: Role) => RANK[to] < RANK[from];

/** The roles that may do what a role refused needs, in words for the refusal. */
export function roleRefusal(role: Role, what: string): string {
  return `Your role in this workspace (${role}) cannot ${what}`;
}
