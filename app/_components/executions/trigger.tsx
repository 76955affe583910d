import type { Execution } from '@/app/_lib/types';
import { Badge } from '../ui';

// What started an execution, in the same words everywhere: the API, the dashboard's playground,
// or a schedule.

export type Trigger = Execution['trigger'];

export const TRIGGER_LABELS: Record<Trigger['type'], string> = { api: 'API', playground: 'Playground', schedule: 'Schedule' };

const TONE = { api: 'slate', playground: 'indigo', schedule: 'amber' } as const;

export function TriggerBadge({ trigger }: { trigger: Trigger }) {
  return (
    <Badge tone={TONE[trigger.type]} data-testid="execution-trigger-badge" data-trigger={trigger.type}>
      {TRIGGER_LABELS[trigger.type]}
    </Badge>
  );
}

/** Where a schedule is shown: its own page. */
export const scheduleHref = (scheduleId: string) => `/dashboard/schedules/${scheduleId}`;
