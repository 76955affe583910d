import Link from 'next/link';
import { isValidElement, type ReactNode } from 'react';
import { WhenLines } from './when';

// The frame of the dashboard's list tables: below lg the rows become cards (one DOM, restyled),
// so no column hides off-screen on a phone; from lg up it is a plain table (that scrolls sideways
// should it not fit: a table drops lesser columns on narrower screens to avoid it, see `Column`).

/** A cell's padding (none on a card). */
export const CELL = 'px-4 py-3 max-lg:p-0';
/** A cell's label, shown on a card only (the table has its header). */
export const LABEL = 'block text-xs text-slate-500 lg:hidden';
/** A row that is a two-column card below lg, the whole card being its link's target. */
export const CARD_ROW = 'relative align-top max-lg:grid max-lg:grid-cols-2 max-lg:gap-x-3 max-lg:gap-y-3 max-lg:p-4 max-lg:hover:bg-slate-50/60 lg:hover:bg-slate-50/60';

/** A column's header: its label, or its label and classes for the header cell (say `max-xl:hidden` for a column narrower tables drop; its cells hide alike). */
export type Column = ReactNode | { label: ReactNode; className: string };

const columnOf = (c: Column) => (c !== null && typeof c === 'object' && !isValidElement(c) && 'label' in c ? c : { label: c, className: '' });

/** `columns`: the header's labels; an empty one is named `blankLabel` for screen readers only. */
export function CardTable({ columns, blankLabel = 'Open', testId, children }: { columns: readonly Column[]; blankLabel?: string; testId: string; children: ReactNode }) {
  return (
    <div className="relative lg:overflow-x-auto">
      <table className="w-full text-sm max-lg:block lg:min-w-full lg:divide-y lg:divide-slate-200" data-testid={testId}>
        <thead className="bg-slate-50 max-lg:hidden">
          <tr>
            {columns.map(columnOf).map(({ label, className }, i) => (
              <th key={i} scope="col" className={`px-4 py-3 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase ${className}`}>
                {label || <span className="sr-only">{blankLabel}</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white max-lg:block">{children}</tbody>
      </table>
    </div>
  );
}

/** A date cell: the day above its time and zone (app/_lib/dates.ts); `className` adds to the cell's layout. */
export function DateCell({ label, iso, className = '' }: { label: string; iso: string; className?: string }) {
  return (
    <td className={`${CELL} text-slate-600 ${className}`}>
      <span className={LABEL}>{label}</span>
      <WhenLines iso={iso} />
    </td>
  );
}

/** The last column of a table: "Open →" to the row's page (on a card the whole card is the link). */
export function OpenCell({ href, name }: { href: string; name: string }) {
  return (
    <td className="px-4 py-3 text-right max-lg:hidden">
      <Link href={href} className="text-sm font-semibold whitespace-nowrap text-indigo-600 hover:text-indigo-500" aria-label={`Open ${name}`}>
        Open →
      </Link>
    </td>
  );
}
