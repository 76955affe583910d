import { MEMBER_ROLES, type MemberRole } from '@/db/schema/values';

// The roles as the dashboard explains them (docs/teams.md); the server decides what each may do.

export type Role = MemberRole;
export const ROLES = MEMBER_ROLES;

export const ROLE_HELP: Record<Role, string> = {
  owner: 'Everything, including managing owners.',
  admin: 'Everything but managing owners: members, keys, webhooks, budgets, the audit log.',
  developer: 'Builds and runs agents, schedules and approvals; runs evals; reads usage, budgets and webhooks; makes keys with agents:*, analytics:read and evals:manage.',
  viewer: 'Reads only. Never sees an API key.',
};

/** Whether a member of `role` manages members (owners and admins). */
export const managesMembers = (role: Role | undefined) => role === 'owner' || role === 'admin';

/** The roles `role` may give (and take away): owners every one, admins all but owner. */
export const assignable = (role: Role | undefined): readonly Role[] => (role === 'owner' ? ROLES : role === 'admin' ? ROLES.filter((r) => r !== 'owner') : []);
