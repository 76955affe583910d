import type { Metadata } from 'next';
import { ConversationsView } from '@/app/_components/conversations/conversations-view';

export const metadata: Metadata = { title: 'Conversations' };

type Search = Record<string, string | string[] | undefined>;

/** The agent filter in the address (`?agentId=agt_…`), so a filtered list can be linked to. */
export default async function ConversationsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const raw = (await searchParams).agentId;
  const agentId = typeof raw === 'string' && raw ? raw.slice(0, 200) : undefined;
  return <ConversationsView initialAgentId={agentId} key={agentId ?? ''} />;
}
