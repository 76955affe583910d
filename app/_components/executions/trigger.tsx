import type { Execution } from '@/app/_lib/types';
import { Badge } from '../ui';

// What started an execution, in the same words everywhere: the API, the dashboard's playground,
// a schedule, an experiment's item, or an LLM judge scoring another run.

export type Trigger = Execution['trigger'];

export const TRIGGER_LABELS: Record<Trigger['type'], string> = { api: 'API', playground: 'Playground', schedule: 'Schedule', experiment: 'Experiment', judge: 'Judge' };

const TONE = { api: 'slate', playground: 'indigo', schedule: 'amber', experiment: 'green', judge: 'violet' } as const;

export function TriggerBadge({ trigger }: { trigger: Trigger }) {
  return (
    <Badge tone={TONE[trigger.type]} data-testid="execution-trigger-badge" data-trigger={trigger.type}>
      {TRIGGER_LABELS[trigger.type]}
    </Badge>
  );
}

/** Where a schedule is shown: its own page. */
export const scheduleHref = (scheduleId: string) => `/dashboard/schedules/${scheduleId}`;
