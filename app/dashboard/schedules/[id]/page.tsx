import type { Metadata } from 'next';
import { ScheduleView } from '@/app/_components/schedules/schedule-view';

export const metadata: Metadata = { title: 'Schedule' };

export default async function SchedulePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ScheduleView id={id} />;
}
