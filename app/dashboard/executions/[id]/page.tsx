import type { Metadata } from 'next';
import { ExecutionView } from '@/app/_components/executions/execution-view';

export const metadata: Metadata = { title: 'Execution' };

export default async function ExecutionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ExecutionView id={id} />;
}
