'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiErrorOf } from '@/app/_lib/errors';
import type { Execution } from '@/app/_lib/types';
import type { ErrorCode } from '@/server/platform/errors';
import { useTRPC } from '../providers';

// Deciding a tool call that awaits approval (executions.approvals, as POST
// /v1/executions/{id}/approvals): the answer is the execution, `queued` once nothing is left
// to decide (it resumes), else still `requires_action`. It becomes the execution page's data,
// and every list is read again (the Approvals page, the count in the navigation).

export type AwaitedCall = NonNullable<Execution['requiredAction']>['toolCalls'][number];

export interface Decision {
  approve: boolean;
  reason?: string;
  arguments?: Record<string, unknown>;
}

/** The call is no longer there to decide: decided elsewhere (another tab, the API, its expiry), or the run was cancelled. */
const STALE: readonly ErrorCode[] = ['tool_call_already_decided', 'approval_expired', 'execution_not_awaiting_approval', 'resource_not_found'];
export const isStale = (err: unknown): boolean => STALE.includes(apiErrorOf(err)?.code as ErrorCode);

export function useDecide(executionId: string, on: { decided?: (execution: Execution) => void; stale?: () => void } = {}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const readLists = () => void queryClient.invalidateQueries({ queryKey: trpc.executions.list.pathKey() });
  const mutation = useMutation(
    trpc.executions.approvals.mutationOptions({
      onSuccess: (execution) => {
        queryClient.setQueryData(trpc.executions.get.queryKey({ id: execution.id }), execution);
        readLists();
        on.decided?.(execution);
      },
      onError: (err) => {
        if (!isStale(err)) return;
        void queryClient.invalidateQueries({ queryKey: trpc.executions.get.queryKey({ id: executionId }) });
        readLists();
        on.stale?.();
      },
    }),
  );
  return {
    ...mutation,
    decide: (toolCallId: string, decision: Decision) => mutation.mutate({ id: executionId, decisions: [{ toolCallId, ...decision }] }),
  };
}
