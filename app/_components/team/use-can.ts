'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../providers';
import type { Role } from './roles';

/**
 * What the signed-in member's role lets the dashboard offer (docs/teams.md): the server checks
 * every call again, so this only hides what would be refused. Until the role is known, nothing
 * that changes anything is offered.
 */
export function useCan() {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.account.me.queryOptions(), staleTime: 60_000 });
  const role = me.data?.role as Role | undefined;
  return {
    role,
    /** Agents, schedules, runs, approvals, conversations: developers, admins and owners. */
    build: role !== undefined && role !== 'viewer',
    /** Webhooks' and budgets' changes, members: admins and owners. */
    administer: role === 'owner' || role === 'admin',
    /** API keys (the list too): all but viewers. */
    keys: role !== undefined && role !== 'viewer',
  };
}
