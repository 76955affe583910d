import type { Execution } from '@/app/_lib/types';
import { IdText } from '../id-text';
import { cx } from '../ui';

// What a replay replays (docs/traces.md, "Replay"): the original, linked, the first step it ran
// live (numbered from 1, as on the page) and whether its tools were called.

export type ReplayOfInfo = NonNullable<Execution['replayOf']>;

export const REPLAY_TOOLS_WORDS: Record<ReplayOfInfo['tools'], string> = { recorded: 'recorded tools', live: 'live tools' };

export const executionHref = (id: string) => `/dashboard/executions/${id}`;

/** "Replay of exe_… from step 2 (recorded tools)". */
export function ReplayOf({ replayOf, className, testId }: { replayOf: ReplayOfInfo; className?: string; testId?: string }) {
  return (
    <p
      className={cx('flex max-w-full min-w-0 flex-wrap items-center gap-x-1.5 gap-y-0.5 text-sm text-slate-600', className)}
      data-testid={testId}
      data-from-step={replayOf.fromStep}
      data-tools={replayOf.tools}
    >
      <span>Replay of</span>{' '}
      <IdText value={replayOf.executionId} href={executionHref(replayOf.executionId)} testId="replay-of-id" className="min-w-0" />{' '}
      <span>
        from step {replayOf.fromStep + 1} ({REPLAY_TOOLS_WORDS[replayOf.tools]})
      </span>
    </p>
  );
}
