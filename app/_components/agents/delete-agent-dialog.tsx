'use client';

import { useMutation } from '@tanstack/react-query';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function DeleteAgentDialog({ agent, onClose, onDeleted }: { agent: { id: string; name: string }; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.agents.delete.mutationOptions({ onSuccess: onDeleted }));

  return (
    <ConfirmDialog
      title={`Delete “${agent.name}”?`}
      label="Delete agent"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: agent.id })}
      pending={remove.isPending}
      error={remove.error}
      testId="delete-agent-dialog"
      confirmTestId="delete-agent-confirm"
    >
      <p>
        Its <strong className="font-semibold">queued and running executions will be cancelled</strong> and its schedules deleted, and the API answers{' '}
        <code className="font-mono text-xs">404</code> for it from now on. Past executions stay in the executions list. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
