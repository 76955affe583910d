import type { Metadata } from 'next';
import { EditAgentView } from '@/app/_components/agents/agent-editor';

export const metadata: Metadata = { title: 'Edit agent' };

export default async function EditAgentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditAgentView id={id} />;
}
