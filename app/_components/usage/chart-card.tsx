'use client';

import { useId, useState, type ReactNode } from 'react';
import { Card } from '../ui';

// A chart in its card, with its numbers one click away as a real table ("Show table"), so
// they can be read exactly, by keyboard and by screen readers.

export interface TableColumn {
  label: string;
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
}

export interface TableRow {
  key: string;
  /** The first cell names the row (a row header). */
  cells: ReactNode[];
}

/** An accessible table that scrolls sideways inside its container when it is too wide. */
export function DataTable({ caption, columns, rows, testId }: { caption: string; columns: TableColumn[]; rows: TableRow[]; testId?: string }) {
  const align = (i: number) => (columns[i]?.numeric ? 'text-right tabular-nums' : 'text-left');
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50">
          <tr>
            {columns.map((c, i) => (
              <th key={c.label} scope="col" className={`px-3 py-2 text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase ${align(i)}`}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.key} data-testid={testId ? `${testId}-row` : undefined} data-row={r.key}>
              {r.cells.map((cell, i) =>
                i === 0 ? (
                  <th key={i} scope="row" className={`px-3 py-2 font-medium whitespace-nowrap text-slate-800 ${align(i)}`}>
                    {cell}
                  </th>
                ) : (
                  <td key={i} className={`px-3 py-2 whitespace-nowrap text-slate-700 ${align(i)}`}>
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ChartCard({
  title,
  description,
  empty,
  chart,
  table,
  className = '',
  testId,
}: {
  title: string;
  description?: ReactNode;
  /** Shown instead of the chart and its table when there is nothing to draw. */
  empty?: string | null;
  chart: ReactNode;
  table: { columns: TableColumn[]; rows: TableRow[] };
  className?: string;
  testId: string;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <Card className={`min-w-0 p-4 sm:p-5 ${className}`} data-testid={testId}>
      <h2 className="font-semibold text-slate-900">{title}</h2>
      {description && <p className="mt-0.5 text-xs text-slate-500">{description}</p>}
      {empty ? (
        <p className="mt-4 grid h-40 place-items-center rounded-lg bg-slate-50 px-4 text-center text-sm text-slate-500" data-testid={`${testId}-empty`}>
          {empty}
        </p>
      ) : (
        <>
          <div className="mt-4 min-w-0">{chart}</div>
          <button
            type="button"
            aria-expanded={open}
            aria-controls={id}
            onClick={() => setOpen((o) => !o)}
            className="mt-3 inline-flex items-center gap-1.5 rounded text-sm font-medium text-indigo-600 hover:text-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-600"
            data-testid={`${testId}-toggle`}
          >
            <span aria-hidden className={`inline-block text-xs transition-transform ${open ? 'rotate-90' : ''}`}>
              ▸
            </span>
            {open ? 'Hide table' : 'Show table'}
          </button>
          <div id={id} hidden={!open} className="mt-2 overflow-hidden rounded-lg ring-1 ring-slate-200">
            {open && <DataTable caption={title} columns={table.columns} rows={table.rows} testId={`${testId}-table`} />}
          </div>
        </>
      )}
    </Card>
  );
}
