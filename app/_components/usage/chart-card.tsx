'use client';

import { useId, useState, type ReactNode } from 'react';
import { Button, Card } from '../ui';
import { DataTable, type TableColumn, type TableRow } from './data-table';

// A chart in its card, with its numbers one click away as a real table ("Show table"), so
// they can be read exactly, by keyboard and by screen readers, and as a CSV download.

function DownloadIcon() {
  return (
    <svg aria-hidden viewBox="0 0 20 20" fill="currentColor" className="size-4">
      <path d="M10.75 2.75a.75.75 0 0 0-1.5 0v8.6L6.3 8.24a.75.75 0 1 0-1.1 1.02l4.25 4.5a.75.75 0 0 0 1.1 0l4.25-4.5a.75.75 0 1 0-1.1-1.02l-2.95 3.1v-8.6Z" />
      <path d="M3.5 12.75a.75.75 0 0 0-1.5 0v2.5A2.75 2.75 0 0 0 4.75 18h10.5A2.75 2.75 0 0 0 18 15.25v-2.5a.75.75 0 0 0-1.5 0v2.5c0 .69-.56 1.25-1.25 1.25H4.75c-.69 0-1.25-.56-1.25-1.25v-2.5Z" />
    </svg>
  );
}

/** Downloads a card's table as its own CSV; disabled (null) until the page's numbers are complete. */
export function CsvButton({ what, onDownload, testId }: { what: string; onDownload: (() => void) | null; testId: string }) {
  return (
    <Button variant="ghost" className="-my-1 -mr-2 shrink-0 px-2 py-1 text-xs" disabled={!onDownload} onClick={() => onDownload?.()} aria-label={`Download ${what} as CSV`} data-testid={testId}>
      <DownloadIcon />
      CSV
    </Button>
  );
}

/** A card's title and description, with its CSV download on the right. */
export function CardHeader({ title, description, csv, testId }: { title: string; description?: ReactNode; csv: (() => void) | null; testId: string }) {
  return (
    <div className="flex items-start justify-between gap-3">
      <div className="min-w-0">
        <h2 className="font-semibold text-slate-900">{title}</h2>
        {description && <p className="mt-0.5 text-xs text-slate-500">{description}</p>}
      </div>
      <CsvButton what={title} onDownload={csv} testId={`${testId}-csv`} />
    </div>
  );
}

export function ChartCard({
  title,
  description,
  empty,
  chart,
  table,
  csv,
  className = '',
  testId,
}: {
  title: string;
  description?: ReactNode;
  /** Shown instead of the chart and its table when there is nothing to draw. */
  empty?: string | null;
  chart: ReactNode;
  table: { columns: TableColumn[]; rows: TableRow[] };
  /** Downloads the card's numbers as CSV; null while they are not ready. */
  csv: (() => void) | null;
  className?: string;
  testId: string;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <Card className={`min-w-0 p-4 sm:p-5 ${className}`} data-testid={testId}>
      <CardHeader title={title} description={description} csv={csv} testId={testId} />
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
