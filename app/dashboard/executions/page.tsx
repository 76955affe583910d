import type { Metadata } from 'next';
import { ExecutionsView, type ExecutionFilters } from '@/app/_components/executions/executions-view';
import { STATUSES } from '@/app/_components/executions/status-badge';

export const metadata: Metadata = { title: 'Executions' };

type Search = Record<string, string | string[] | undefined>;
const one = (value: string | string[] | undefined) => (typeof value === 'string' && value ? value.slice(0, 200) : undefined);

/** The filters in the address (`?status=running&agentId=…&agentVersion=3`), so a filtered list can be linked to. */
function filtersOf(search: Search): ExecutionFilters {
  const status = STATUSES.find((s) => s === search.status);
  const agentId = one(search.agentId);
  const conversationId = one(search.conversationId);
  const scheduleId = one(search.scheduleId);
  const version = one(search.agentVersion);
  const agentVersion = version && /^[1-9][0-9]{0,8}$/.test(version) ? Number(version) : undefined;
  return {
    ...(status ? { status } : {}),
    ...(agentId ? { agentId } : {}),
    ...(conversationId ? { conversationId } : {}),
    ...(scheduleId ? { scheduleId } : {}),
    ...(agentVersion ? { agentVersion } : {}),
  };
}

export default async function ExecutionsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const filters = filtersOf(await searchParams);
  return <ExecutionsView initial={filters} key={JSON.stringify(filters)} />;
}
