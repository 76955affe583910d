'use client';

import { useMutation } from '@tanstack/react-query';
import { progressOf } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

// Cancelling an experiment, confirmed: no run starts from then on, the runs under way are
// cancelled, what was scored keeps its scores. One that ended meanwhile cannot be: the server's
// message says so (409 experiment_not_cancellable).

export function CancelExperimentDialog({ experiment: e, onClose, onDone }: { experiment: Experiment; onClose: () => void; onDone: (e: Experiment) => void }) {
  const trpc = useTRPC();
  const cancel = useMutation(trpc.experiments.cancel.mutationOptions({ onSuccess: onDone }));
  return (
    <ConfirmDialog
      title={`Cancel “${e.name}”?`}
      label="Cancel experiment"
      cancelLabel="Keep running"
      variant="danger"
      onClose={onClose}
      onConfirm={() => cancel.mutate({ id: e.id })}
      pending={cancel.isPending}
      error={cancel.error}
      testId="cancel-experiment-dialog"
      confirmTestId="cancel-experiment-confirm"
      errorTestId="cancel-experiment-error"
    >
      <p>
        {progressOf(e.progress).text} runs are done. No other run starts, and the runs under way are cancelled. What was scored keeps its scores, and the
        summary is computed from it.
      </p>
    </ConfirmDialog>
  );
}
