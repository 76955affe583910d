'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../providers';

/** Enables or pauses a webhook; the list and the webhook's page show the result at once. */
export function useSetEnabled() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.webhooks.update.mutationOptions({
      onSuccess: (webhook) => {
        queryClient.setQueryData(trpc.webhooks.get.queryKey({ id: webhook.id }), webhook);
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.pathKey() });
      },
    }),
  );
}
