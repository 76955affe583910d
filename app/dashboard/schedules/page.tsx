import type { Metadata } from 'next';
import { SchedulesView } from '@/app/_components/schedules/schedules-view';

export const metadata: Metadata = { title: 'Schedules' };

type Search = Record<string, string | string[] | undefined>;

/** The agent filter in the address (`?agentId=agt_…`), so a filtered list can be linked to. */
export default async function SchedulesPage({ searchParams }: { searchParams: Promise<Search> }) {
  const raw = (await searchParams).agentId;
  const agentId = typeof raw === 'string' && raw ? raw.slice(0, 200) : undefined;
  return <SchedulesView initialAgentId={agentId} key={agentId ?? ''} />;
}
