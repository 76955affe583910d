import type { Metadata } from 'next';
import { ExperimentsView } from '@/app/_components/experiments/experiments-view';

export const metadata: Metadata = { title: 'Experiments' };

type Search = Record<string, string | string[] | undefined>;

/** `?new=1` opens the New experiment dialog, `&datasetId=` choosing the dataset (a dataset's page links here). */
export default async function ExperimentsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const datasetId = typeof search.datasetId === 'string' ? search.datasetId : undefined;
  return <ExperimentsView initialCreating={search.new === '1'} initialDatasetId={datasetId} />;
}
