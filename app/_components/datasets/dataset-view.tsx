'use client';

import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { itemCount } from '@/app/_lib/datasets';
import { hasErrorCode } from '@/app/_lib/errors';
import type { Dataset, DatasetItem } from '@/app/_lib/types';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';
import { TableSkeleton } from '../agents/agents-table';
import { IdText } from '../id-text';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { Breadcrumb, DatasetIcon, EmptyState, ListFooter, LoadError, PageSkeleton } from '../states';
import { useCan } from '../team/use-can';
import { Badge, Button, ButtonLink, Card, Spinner } from '../ui';
import { When } from '../when';
import { DatasetDialog } from './dataset-dialog';
import { DeleteDatasetDialog, DeleteItemDialog } from './delete-dialogs';
import { ItemDialog } from './item-dialog';
import { ItemsTable } from './items-table';

// One dataset's page (docs/evals.md, "Datasets"): its name, description and size, then its
// items newest first in keyset pages. Developers, admins and owners add items by hand (or from an
// execution's page), edit and delete them, rename the dataset and delete it (confirmed); viewers
// read. Another workspace's or environment's dataset is "not found" on the server: the page says so.

const ITEMS_PAGE = 25;

type Dialog = { kind: 'edit' } | { kind: 'delete' } | { kind: 'add-item' } | { kind: 'edit-item'; item: DatasetItem } | { kind: 'delete-item'; item: DatasetItem };

function Items({ dataset, canWrite, onDialog }: { dataset: Dataset; canWrite: boolean; onDialog: (d: Dialog) => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const items = useInfiniteQuery({
    queryKey: [...trpc.datasets.items.pathKey(), 'pages', { id: dataset.id }],
    queryFn: ({ pageParam, signal }) => client.datasets.items.query({ id: dataset.id, limit: ITEMS_PAGE, ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const rows = items.data?.pages.flatMap((p) => p.data) ?? [];

  if (items.isPending) return <TableSkeleton label="Loading its items" testId="items-loading" />;
  if (items.isError && rows.length === 0) return <LoadError what="Its items" error={items.error} onRetry={() => void items.refetch()} testId="items-error" />;
  if (rows.length === 0) {
    return (
      <EmptyState
        icon={<DatasetIcon />}
        title="No items yet"
        action={
          canWrite && (
            <Button onClick={() => onDialog({ kind: 'add-item' })} data-testid="add-item-empty">
              <span aria-hidden>+</span> Add an item
            </Button>
          )
        }
        testId="items-empty"
      >
        Each item is an input for the agent and the answer you expect. Add one by hand, or open an execution whose answer was right and choose “Add to dataset”.
      </EmptyState>
    );
  }
  return (
    <>
      <ItemsTable
        items={rows}
        onEdit={canWrite ? (item) => onDialog({ kind: 'edit-item', item }) : undefined}
        onDelete={canWrite ? (item) => onDialog({ kind: 'delete-item', item }) : undefined}
      />
      <ListFooter list={items} />
    </>
  );
}

export function DatasetView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const dataset = useQuery({ ...trpc.datasets.get.queryOptions({ id }), retry: (n, e) => !hasErrorCode(e, 'resource_not_found') && n < 2 });
  const can = useCan();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey() });
  const close = () => setDialog(null);

  if (dataset.isPending) return <PageSkeleton label="Loading the dataset" testId="dataset-loading" />;
  if (dataset.isError) {
    const missing = hasErrorCode(dataset.error, 'resource_not_found');
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/datasets" parent="Datasets" current={id} />
        <Card>
          {missing ? (
            <EmptyState icon={<DatasetIcon />} title="No such dataset here" action={<ButtonLink href="/dashboard/datasets">Back to datasets</ButtonLink>} testId="dataset-not-found">
              It may have been deleted, or belong to {environment === 'test' ? 'live' : 'test'} mode: datasets of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This dataset" error={dataset.error} onRetry={() => void dataset.refetch()} testId="dataset-error" />
          )}
        </Card>
      </div>
    );
  }

  const d = dataset.data;
  return (
    <div className="space-y-6" data-testid="dataset-page" data-dataset-id={d.id}>
      <Breadcrumb href="/dashboard/datasets" parent="Datasets" current={d.name} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1.5">
          <h1 className="flex flex-wrap items-center gap-x-3 gap-y-1 text-2xl font-semibold tracking-tight text-slate-900">
            <span className="min-w-0 wrap-anywhere" data-testid="dataset-name">
              {d.name}
            </span>
            <Badge tone={d.environment === 'test' ? 'amber' : 'green'}>{ENVIRONMENT_WORDS[d.environment]}</Badge>
            {dataset.isFetching && <Spinner className="size-3.5 text-slate-400" />}
          </h1>
          {d.description && (
            <p className="max-w-2xl text-sm whitespace-pre-line wrap-anywhere text-slate-600" data-testid="dataset-description">
              {d.description}
            </p>
          )}
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-600">
            <span className="font-medium text-slate-800 tabular-nums" data-testid="dataset-item-count">
              {itemCount(d.itemCount)}
            </span>
            <span aria-hidden>·</span>
            <span>
              Created <When iso={d.createdAt} now={dataset.dataUpdatedAt} />
            </span>
            <span aria-hidden>·</span>
            <IdText value={d.id} testId="dataset-id" />
          </p>
        </div>
        {can.build && (
          <div className="flex flex-wrap gap-2">
            {d.itemCount > 0 && (
              <ButtonLink href={`/dashboard/experiments?new=1&datasetId=${d.id}`} variant="secondary" data-testid="dataset-new-experiment">
                Run an experiment
              </ButtonLink>
            )}
            <Button variant="secondary" onClick={() => setDialog({ kind: 'edit' })} data-testid="edit-dataset">
              Edit
            </Button>
            <Button variant="dangerGhost" onClick={() => setDialog({ kind: 'delete' })} data-testid="delete-dataset">
              Delete
            </Button>
          </div>
        )}
      </div>

      <Card className="overflow-hidden" data-testid="dataset-items">
        <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2 border-b border-slate-200 px-4 py-3 sm:px-5">
          <h2 className="font-semibold text-slate-900">Items</h2>
          {can.build && d.itemCount > 0 && (
            <Button className="px-3 py-1.5" onClick={() => setDialog({ kind: 'add-item' })} data-testid="add-item">
              <span aria-hidden>+</span> Add item
            </Button>
          )}
        </div>
        <Items dataset={d} canWrite={can.build} onDialog={setDialog} />
      </Card>

      {dialog?.kind === 'edit' && (
        <DatasetDialog
          dataset={d}
          onClose={close}
          onSaved={() => {
            close();
            refresh();
          }}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteDatasetDialog
          dataset={d}
          onClose={close}
          onDeleted={() => {
            void queryClient.invalidateQueries({ queryKey: trpc.datasets.list.pathKey() });
            router.push('/dashboard/datasets');
          }}
        />
      )}
      {(dialog?.kind === 'add-item' || dialog?.kind === 'edit-item') && (
        <ItemDialog
          key={dialog.kind === 'edit-item' ? dialog.item.id : 'new'}
          datasetId={d.id}
          item={dialog.kind === 'edit-item' ? dialog.item : undefined}
          onClose={close}
          onSaved={() => {
            close();
            refresh();
          }}
        />
      )}
      {dialog?.kind === 'delete-item' && (
        <DeleteItemDialog
          item={dialog.item}
          onClose={close}
          onDeleted={() => {
            close();
            refresh();
          }}
        />
      )}
    </div>
  );
}
