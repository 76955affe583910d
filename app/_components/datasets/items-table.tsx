'use client';

import { clip } from '@/app/_lib/datasets';
import type { DatasetItem } from '@/app/_lib/types';
import { CardTable, CELL, DateCell, LABEL, type Column } from '../card-table';
import { IdText } from '../id-text';
import { Button, MetadataList } from '../ui';
import { ExpectedValue, InputText } from './expected';

// A dataset's items: the input, the expected answer (a text as text, JSON as one line of code;
// both cut with "Show all"), where the item came from (an execution, linked, or by hand) and
// when it was added; Edit and Delete for those whose role may. Below lg each row is a card: the
// input and the answer across it, then its source and date, then its actions.

/** The item as buttons name it for screen readers: the start of its input. */
function itemName(item: DatasetItem): string {
  const { shown, cut } = clip(item.input, { chars: 40, lines: 1 });
  return `“${shown}${cut ? '…' : ''}”`;
}

const COLUMNS: Column[] = ['Input', 'Expected', 'Source', { label: 'Added', className: 'max-xl:hidden' }, ''];

export function ItemsTable({ items, onEdit, onDelete }: { items: DatasetItem[]; onEdit?: (item: DatasetItem) => void; onDelete?: (item: DatasetItem) => void }) {
  const actions = onEdit !== undefined || onDelete !== undefined;
  return (
    <CardTable columns={actions ? COLUMNS : COLUMNS.slice(0, -1)} blankLabel="Actions" testId="items-table">
      {items.map((item) => (
        <tr
          key={item.id}
          className="align-top max-lg:grid max-lg:grid-cols-2 max-lg:gap-x-3 max-lg:gap-y-3 max-lg:p-4 lg:hover:bg-slate-50/60"
          data-testid="item-row"
          data-item-id={item.id}
        >
          <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:w-1/2 lg:min-w-48`}>
            <span className={LABEL}>Input</span>
            <InputText text={item.input} testId="item-input-text" />
          </td>
          <td className={`${CELL} min-w-0 max-lg:col-span-2 lg:w-1/2 lg:min-w-48`}>
            <span className={LABEL}>Expected</span>
            <ExpectedValue value={item.expected} testId="item-expected-value" />
          </td>
          <td className={`${CELL} min-w-0 text-slate-600 lg:max-w-56`} data-testid="item-source">
            <span className={LABEL}>Source</span>
            {item.sourceExecutionId ? (
              <>
                <span className="block text-xs text-slate-500 max-lg:hidden">Execution</span>
                <IdText value={item.sourceExecutionId} href={`/dashboard/executions/${item.sourceExecutionId}`} testId="item-source-execution" />
              </>
            ) : (
              <span className="text-slate-500">Added by hand</span>
            )}
            {Object.keys(item.metadata).length > 0 && (
              <div className="mt-1.5">
                <MetadataList metadata={item.metadata} />
              </div>
            )}
          </td>
          <DateCell label="Added" iso={item.createdAt} className="max-lg:justify-self-end max-lg:text-right lg:max-xl:hidden" />
          {actions && (
            <td className="py-2 pr-4 pl-2 text-right whitespace-nowrap max-lg:col-span-2 max-lg:-mx-3 max-lg:-mb-2 max-lg:flex max-lg:justify-end max-lg:gap-1 max-lg:border-t max-lg:border-slate-100 max-lg:p-0 max-lg:pt-1">
              {onEdit && (
                <Button variant="ghost" onClick={() => onEdit(item)} aria-label={`Edit ${itemName(item)}`} data-testid="edit-item">
                  Edit
                </Button>
              )}
              {onDelete && (
                <Button variant="dangerGhost" onClick={() => onDelete(item)} aria-label={`Delete ${itemName(item)}`} data-testid="delete-item">
                  Delete
                </Button>
              )}
            </td>
          )}
        </tr>
      ))}
    </CardTable>
  );
}
