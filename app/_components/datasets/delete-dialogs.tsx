'use client';

import { useMutation } from '@tanstack/react-query';
import { clip, itemCount } from '@/app/_lib/datasets';
import type { Dataset, DatasetItem } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';

// Deleting a dataset (and its items) or one item, confirmed first: neither can be undone.

export function DeleteDatasetDialog({ dataset, onClose, onDeleted }: { dataset: Dataset; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.datasets.delete.mutationOptions({ onSuccess: onDeleted }));
  return (
    <ConfirmDialog
      title={`Delete “${dataset.name}”?`}
      label="Delete dataset"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: dataset.id })}
      pending={remove.isPending}
      error={remove.error}
      testId="delete-dataset-dialog"
      confirmTestId="delete-dataset-confirm"
      errorTestId="delete-dataset-error"
    >
      <p>
        {dataset.itemCount === 0 ? 'It holds no items.' : `Its ${itemCount(dataset.itemCount)} are deleted with it.`} Experiments already run on it keep the items
        as they were. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

export function DeleteItemDialog({ item, onClose, onDeleted }: { item: DatasetItem; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.datasets.deleteItem.mutationOptions({ onSuccess: onDeleted }));
  const { shown, cut } = clip(item.input, { chars: 160, lines: 3 });
  return (
    <ConfirmDialog
      title="Delete this item?"
      label="Delete item"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: item.datasetId, itemId: item.id })}
      pending={remove.isPending}
      error={remove.error}
      testId="delete-item-dialog"
      confirmTestId="delete-item-confirm"
      errorTestId="delete-item-error"
    >
      <blockquote className="rounded-md bg-slate-50 px-3 py-2 whitespace-pre-wrap wrap-anywhere text-slate-800 ring-1 ring-slate-200 ring-inset">
        {shown}
        {cut && '…'}
      </blockquote>
      <p>The input and its expected answer leave the dataset. Experiments already run on it keep the item as it was. This cannot be undone.</p>
    </ConfirmDialog>
  );
}
