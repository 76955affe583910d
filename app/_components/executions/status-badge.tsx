import type { ExecutionStatus } from '@/app/_lib/types';
import { EXECUTION_STATUS_WORDS } from '@/app/_lib/words';
import { EXECUTION_STATUSES, isActive } from '@/server/modules/vocabulary/statuses';
import { Badge } from '../ui';

// One colour per execution status, everywhere: queued slate, running indigo (pulsing),
// requires_action violet (a person's turn), succeeded green, failed red, cancelled amber; each in
// people's words ("Awaiting approval"), its value in `data-status`.

const TONE = { queued: 'slate', running: 'indigo', requires_action: 'violet', succeeded: 'green', failed: 'red', cancelled: 'amber' } as const satisfies Record<ExecutionStatus, string>;

/** Every status in the order a run goes through them, and which are still under way (statuses.ts). */
export { EXECUTION_STATUSES as STATUSES, isActive };

export function StatusBadge({ status, className }: { status: ExecutionStatus; className?: string }) {
  return (
    <Badge tone={TONE[status]} className={className} data-testid="execution-status" data-status={status}>
      {isActive(status) && (
        <span aria-hidden className={`mr-1.5 inline-block size-1.5 rounded-full bg-current ${status === 'running' ? 'animate-pulse' : 'opacity-60'}`} />
      )}
      {EXECUTION_STATUS_WORDS[status]}
    </Badge>
  );
}
