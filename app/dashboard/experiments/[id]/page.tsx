import type { Metadata } from 'next';
import { ExperimentView } from '@/app/_components/experiments/experiment-view';

export const metadata: Metadata = { title: 'Experiment' };

export default async function ExperimentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ExperimentView id={id} />;
}
