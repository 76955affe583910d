'use client';

import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert } from '../ui';

export function DeleteAgentDialog({ agent, onClose, onDeleted }: { agent: { id: string; name: string }; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.agents.delete.mutationOptions({ onSuccess: onDeleted }));

  return (
    <Modal
      title={`Delete “${agent.name}”?`}
      onClose={onClose}
      dismissible={!remove.isPending}
      testId="delete-agent-dialog"
      footer={
        <ModalActions
          label="Delete agent"
          variant="danger"
          onCancel={onClose}
          onConfirm={() => remove.mutate({ id: agent.id })}
          pending={remove.isPending}
          testId="delete-agent-confirm"
        />
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
        <p>
          Its <strong className="font-semibold">queued and running executions will be cancelled</strong>, and the API answers{' '}
          <code className="font-mono text-xs">404</code> for it from now on. Past executions stay in the executions list. This cannot be undone.
        </p>
      </div>
    </Modal>
  );
}
