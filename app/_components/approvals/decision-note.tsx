'use client';

import { useQuery } from '@tanstack/react-query';
import type { ExecutionStep } from '@/app/_lib/types';
import { JsonBlock, prettyJson } from '../executions/json-block';
import { useTRPC } from '../providers';
import { Badge } from '../ui';
import { When } from '../when';

// How a call that needed approval was decided: approved, denied or expired, by whom and when,
// the reason, and the arguments it ran with when they were not the model's.

export type CallDecision = NonNullable<ExecutionStep['toolCalls'][number]['approval']>;

function useDecider(by: CallDecision['decidedBy']): string {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.account.me.queryOptions(), staleTime: 5 * 60_000, enabled: by.type === 'user' });
  switch (by.type) {
    case 'system':
      return 'the service: nobody decided in time';
    case 'key':
      return `API key ${by.id}`;
    case 'user':
      return me.data?.userId === by.id ? 'you, in the dashboard' : `a dashboard user (${by.id})`;
  }
}

export function DecisionNote({ decision, modelArguments }: { decision: CallDecision; modelArguments: unknown }) {
  const decider = useDecider(decision.decidedBy);
  const expired = decision.decidedBy.type === 'system';
  const [tone, label] = decision.approved ? (['green', 'Approved'] as const) : expired ? (['amber', 'Expired'] as const) : (['red', 'Denied'] as const);
  const edited = decision.approved && prettyJson(decision.arguments) !== prettyJson(modelArguments);
  return (
    <div className="min-w-0 space-y-2 rounded-md bg-white px-3 py-2 text-xs ring-1 ring-slate-200" data-testid="call-decision" data-approved={decision.approved}>
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-slate-600">
        <Badge tone={tone} data-testid="call-decision-badge">
          {label}
        </Badge>
        <span className="min-w-0 break-words">
          by <span className="font-medium text-slate-800" data-testid="call-decision-by">{decider}</span>
          <span className="text-slate-500">
            {' · '}
            <When iso={decision.decidedAt} seconds />
          </span>
        </span>
      </p>
      {decision.reason && !expired && (
        <p className="break-words whitespace-pre-wrap text-slate-700" data-testid="call-decision-reason">
          <span className="text-slate-500">Reason: </span>
          {decision.reason}
        </p>
      )}
      {edited && <JsonBlock value={decision.arguments} label="Ran with edited arguments" collapsible open testId="call-decision-arguments" />}
    </div>
  );
}
