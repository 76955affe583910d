'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { itemCount } from '@/app/_lib/datasets';
import type { Dataset } from '@/app/_lib/types';
import { TableSkeleton } from '../agents/agents-table';
import { CARD_ROW, CardTable, CELL, DateCell, LABEL, OpenCell } from '../card-table';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { DatasetIcon, EmptyState, ListFooter, LoadError } from '../states';
import { useCan } from '../team/use-can';
import { Button, Card, Spinner } from '../ui';
import { DatasetDialog } from './dataset-dialog';

// The environment's datasets (docs/evals.md, "Datasets"), newest first, in keyset pages: each
// with its description, how many items it holds and when it was made. Developers, admins and
// owners make new ones (viewers read); a new dataset opens on its own page, to add its items.

const PAGE_SIZE = 25;
const COLUMNS = ['Dataset', 'Items', 'Created', ''];

function DatasetsTable({ datasets }: { datasets: Dataset[] }) {
  return (
    <CardTable columns={COLUMNS} testId="datasets-table">
      {datasets.map((d) => (
        <tr key={d.id} className={CARD_ROW} data-testid="dataset-row" data-dataset-id={d.id}>
          <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:w-full lg:min-w-64`}>
            <Link
              href={`/dashboard/datasets/${d.id}`}
              className="font-medium wrap-anywhere text-slate-900 hover:text-indigo-600 max-lg:after:absolute max-lg:after:inset-0"
              data-testid="dataset-row-name"
            >
              {d.name}
            </Link>
            {d.description && (
              <p className="mt-0.5 line-clamp-2 max-w-3xl text-xs wrap-anywhere text-slate-500" data-testid="dataset-row-description">
                {d.description}
              </p>
            )}
          </td>
          <td className={`${CELL} text-slate-700 tabular-nums lg:whitespace-nowrap`} data-testid="dataset-row-items">
            <span className={LABEL}>Items</span>
            {itemCount(d.itemCount)}
          </td>
          <DateCell label="Created" iso={d.createdAt} className="max-lg:justify-self-end max-lg:text-right" />
          <OpenCell href={`/dashboard/datasets/${d.id}`} name={d.name} />
        </tr>
      ))}
    </CardTable>
  );
}

export function DatasetsView({ initialCreating = false }: { initialCreating?: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const testMode = environment === 'test';
  const can = useCan();
  const [creating, setCreating] = useState(initialCreating);

  const list = useInfiniteQuery({
    queryKey: [...trpc.datasets.list.pathKey(), 'pages'],
    queryFn: ({ pageParam, signal }) => client.datasets.list.query(pageParam ? { limit: PAGE_SIZE, after: pageParam } : { limit: PAGE_SIZE }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const datasets = list.data?.pages.flatMap((p) => p.data) ?? [];

  const newButton = (label: string) =>
    can.build && (
      <Button onClick={() => setCreating(true)} data-testid="create-dataset">
        <span aria-hidden>+</span> {label}
      </Button>
    );

  return (
    <div className="space-y-6" data-testid="datasets-page">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Datasets</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Inputs for your agents with the answers you expect, to evaluate them on: add items by hand, or from an execution’s page. Made here or with{' '}
            <code className="font-mono text-xs">POST /v1/datasets</code>. {testMode ? 'You are viewing test datasets.' : 'You are viewing live datasets.'}
          </p>
        </div>
        <div className="flex items-center gap-2">
          {list.isFetching && !list.isPending && <Spinner className="text-slate-400" />}
          {datasets.length > 0 && newButton('New dataset')}
        </div>
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading datasets" testId="datasets-loading" />
        ) : list.isError && datasets.length === 0 ? (
          <LoadError what="Your datasets" error={list.error} onRetry={() => void list.refetch()} testId="datasets-error" />
        ) : datasets.length === 0 ? (
          <EmptyState icon={<DatasetIcon />} tone={testMode ? 'amber' : 'indigo'} title={`No ${testMode ? 'test' : 'live'} datasets yet`} action={newButton('New dataset')} testId="datasets-empty">
            A dataset is a set of inputs with the answers you expect; experiments run an agent version over it and score the answers. Make one, then add
            items by hand or from the executions you want to keep.
          </EmptyState>
        ) : (
          <>
            <DatasetsTable datasets={datasets} />
            <ListFooter list={list} />
          </>
        )}
      </Card>

      {creating && can.build && (
        <DatasetDialog
          onClose={() => {
            setCreating(false);
            // Opened from a link (`?new=1`): the address forgets it, so a reload does not open it again.
            if (initialCreating) router.replace('/dashboard/datasets', { scroll: false });
          }}
          onSaved={(dataset) => {
            void queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey() });
            router.push(`/dashboard/datasets/${dataset.id}`);
          }}
        />
      )}
    </div>
  );
}
