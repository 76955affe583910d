import type { Metadata } from 'next';
import { NewAgentView } from '@/app/_components/agents/agent-editor';

export const metadata: Metadata = { title: 'New agent' };

export default function NewAgentPage() {
  return <NewAgentView />;
}
