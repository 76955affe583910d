'use client';

import { useMutation } from '@tanstack/react-query';
import { apiErrorOf } from '@/app/_lib/errors';
import type { Execution } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function CancelExecutionDialog({ execution, onClose, onDone }: { execution: Execution; onClose: () => void; onDone: () => void }) {
  const trpc = useTRPC();
  const cancel = useMutation(
    trpc.executions.cancel.mutationOptions({
      onSuccess: onDone,
      // Finished meanwhile: nothing to cancel any more; the page shows how it ended.
      onError: (err) => apiErrorOf(err)?.code === 'execution_not_cancellable' && onDone(),
    }),
  );

  return (
    <ConfirmDialog
      title="Cancel this execution?"
      label="Cancel execution"
      variant="danger"
      cancelLabel="Keep running"
      onClose={onClose}
      onConfirm={() => cancel.mutate({ id: execution.id })}
      pending={cancel.isPending}
      error={cancel.error}
      testId="cancel-execution-dialog"
      confirmTestId="cancel-execution-confirm"
    >
      <p>
        It stops at once: a model or tool call in flight is aborted, and its status becomes <code className="font-mono text-xs">cancelled</code>. It
        cannot be resumed; run the agent again to retry.
      </p>
    </ConfirmDialog>
  );
}
