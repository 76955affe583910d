import type { Metadata } from 'next';
import { DatasetsView } from '@/app/_components/datasets/datasets-view';

export const metadata: Metadata = { title: 'Datasets' };

type Search = Record<string, string | string[] | undefined>;

/** `?new=1` opens the New dataset dialog (the execution page's "Add to dataset" links here when there is none). */
export default async function DatasetsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const creating = (await searchParams).new === '1';
  return <DatasetsView initialCreating={creating} />;
}
