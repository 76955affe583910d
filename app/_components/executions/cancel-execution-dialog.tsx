'use client';

import { useMutation } from '@tanstack/react-query';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import type { Execution } from '@/app/_lib/types';
import { Modal } from '../modal';
import { useTRPC } from '../providers';
import { Alert, Button, Spinner } from '../ui';

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
    <Modal
      title="Cancel this execution?"
      onClose={onClose}
      dismissible={!cancel.isPending}
      testId="cancel-execution-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={cancel.isPending}>
            Keep running
          </Button>
          <Button variant="danger" onClick={() => cancel.mutate({ id: execution.id })} disabled={cancel.isPending} data-testid="cancel-execution-confirm">
            {cancel.isPending && <Spinner />}
            Cancel execution
          </Button>
        </>
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {cancel.isError && <Alert>{errorMessage(cancel.error)}</Alert>}
        <p>
          It stops at once: a model or tool call in flight is aborted, and its status becomes <code className="font-mono text-xs">cancelled</code>. It
          cannot be resumed; run the agent again to retry.
        </p>
      </div>
    </Modal>
  );
}
