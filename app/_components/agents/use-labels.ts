'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Agent } from '@/app/_lib/types';
import { useTRPC } from '../providers';

// Moving and removing an agent's labels (docs/versions.md, "Labels"): each answers the agent
// with its labels, which replaces the agent the page shows; the agents list reads again.

function useOnLabelsChanged(agentId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (agent: Agent) => {
    queryClient.setQueryData(trpc.agents.get.queryKey({ id: agentId }), agent);
    void queryClient.invalidateQueries({ queryKey: trpc.agents.list.pathKey() });
  };
}

/** `agents.moveLabel`: points a label at a version, or at `"latest"` (following new versions). */
export function useMoveLabel(agentId: string) {
  const trpc = useTRPC();
  const onSuccess = useOnLabelsChanged(agentId);
  return useMutation(trpc.agents.moveLabel.mutationOptions({ onSuccess }));
}

/** `agents.removeLabel`: any label but production. */
export function useRemoveLabel(agentId: string) {
  const trpc = useTRPC();
  const onSuccess = useOnLabelsChanged(agentId);
  return useMutation(trpc.agents.removeLabel.mutationOptions({ onSuccess }));
}
