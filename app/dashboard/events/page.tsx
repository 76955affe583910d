import type { Metadata } from 'next';
import { EventsView } from '@/app/_components/events/events-view';
import { EVENT_TYPES } from '@/app/_lib/event-types';

export const metadata: Metadata = { title: 'Events' };

type Search = Record<string, string | string[] | undefined>;

/** The type filter in the address (`?type=execution.failed`), so a filtered list can be linked to. */
export default async function EventsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const type = EVENT_TYPES.find((t) => t === search.type) ?? null;
  return <EventsView initialType={type} key={type ?? ''} />;
}
