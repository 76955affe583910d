import type { Metadata } from 'next';
import { WebhookView } from '@/app/_components/webhooks/webhook-view';

export const metadata: Metadata = { title: 'Webhook' };

export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <WebhookView id={id} />;
}
