import type { Metadata } from 'next';
import { DatasetView } from '@/app/_components/datasets/dataset-view';

export const metadata: Metadata = { title: 'Dataset' };

export default async function DatasetPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <DatasetView id={id} />;
}
