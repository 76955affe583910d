'use client';

import { useMutation } from '@tanstack/react-query';
import type { Budget } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

export function DeleteBudgetDialog({ budget, onClose, onDeleted }: { budget: Budget; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.budgets.delete.mutationOptions({ onSuccess: onDeleted }));

  return (
    <ConfirmDialog
      title={`Delete “${budget.name}”?`}
      label="Delete budget"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: budget.id })}
      pending={remove.isPending}
      error={remove.error}
      testId="delete-budget-dialog"
      confirmTestId="delete-budget-confirm"
    >
      <p>
        {budget.action === 'block'
          ? 'Its cap is lifted at once: runs it refused can start again, and running ones are no longer checked against it.'
          : 'Its alerts stop at once.'}{' '}
        What was spent stays in the usage figures. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
