import Link from 'next/link';
import type { Execution } from '@/app/_lib/types';
import { Badge } from '../ui';

// What started an execution, in the same words everywhere: the API, the dashboard's playground,
// a schedule, an experiment's item, or an LLM judge scoring another run. An experiment's item
// (and a judge's verdict for one) links to the experiment's page.

export type Trigger = Execution['trigger'];

export const TRIGGER_LABELS: Record<Trigger['type'], string> = { api: 'API', playground: 'Playground', schedule: 'Schedule', experiment: 'Experiment', judge: 'Judge' };

const TONE = { api: 'slate', playground: 'indigo', schedule: 'amber', experiment: 'green', judge: 'violet' } as const;

/** Where an experiment is shown: its own page. */
export const experimentHref = (experimentId: string) => `/dashboard/experiments/${experimentId}`;

/** The experiment a run belongs to: its item's, or the one whose item a judge scored. */
const experimentOf = (trigger: Trigger): string | null =>
  trigger.type === 'experiment' ? trigger.experimentId : trigger.type === 'judge' ? (trigger.experimentId ?? null) : null;

export function TriggerBadge({ trigger }: { trigger: Trigger }) {
  const badge = (
    <Badge tone={TONE[trigger.type]} data-testid="execution-trigger-badge" data-trigger={trigger.type}>
      {TRIGGER_LABELS[trigger.type]}
    </Badge>
  );
  const experimentId = experimentOf(trigger);
  if (!experimentId) return badge;
  // Above the row's own link (a card is its link's target below lg).
  return (
    <Link href={experimentHref(experimentId)} className="relative z-10 inline-flex rounded-md hover:opacity-80" title={`Experiment ${experimentId}`} data-testid="execution-trigger-experiment">
      {badge}
    </Link>
  );
}

/** Where a schedule is shown: its own page. */
export const scheduleHref = (scheduleId: string) => `/dashboard/schedules/${scheduleId}`;
