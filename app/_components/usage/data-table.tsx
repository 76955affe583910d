'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';

// The Usage page's tables. A wide table scrolls sideways inside its card, and says so: a fade
// on the side that has more, and a hint above it. With `cards`, below lg each row is a card
// instead (the first cell on top, every other under its column's name), so nothing needs
// scrolling on a phone; one DOM, restyled, as in card-table.tsx.

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

/** Whether the element scrolls sideways, and whether there is more to its left and right. */
function useSideways() {
  const ref = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState({ overflows: false, left: false, right: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => {
      const overflows = el.scrollWidth > el.clientWidth + 1;
      const next = { overflows, left: overflows && el.scrollLeft > 1, right: overflows && el.scrollLeft + el.clientWidth < el.scrollWidth - 1 };
      setEdges((prev) => (prev.overflows === next.overflows && prev.left === next.left && prev.right === next.right ? prev : next));
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const observer = new ResizeObserver(update);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', update);
      observer.disconnect();
    };
  }, []);
  return [ref, edges] as const;
}

const FADE = 'pointer-events-none absolute inset-y-0 w-8 from-white to-transparent transition-opacity';

/** An accessible table; too wide for its container, it scrolls sideways and shows that it does. */
export function DataTable({ caption, columns, rows, cards = false, testId }: { caption: string; columns: TableColumn[]; rows: TableRow[]; cards?: boolean; testId?: string }) {
  const [scroller, side] = useSideways();
  const align = (i: number) => (columns[i]?.numeric ? 'text-right tabular-nums' : 'text-left');
  // On a card: no padding, left-aligned, the column's name above the value (from data-label,
  // so the cell's own text stays the value).
  const card = cards
    ? {
        table: 'max-lg:block',
        head: 'max-lg:hidden',
        body: 'max-lg:block max-lg:border-t max-lg:border-slate-100',
        row: 'max-lg:grid max-lg:grid-cols-[repeat(auto-fill,minmax(6rem,1fr))] max-lg:gap-x-4 max-lg:gap-y-2.5 max-lg:px-4 max-lg:py-3',
        name: 'max-lg:col-span-full max-lg:p-0',
        cell: 'max-lg:p-0 max-lg:text-left max-lg:before:block max-lg:before:text-xs max-lg:before:font-normal max-lg:before:text-slate-500 max-lg:before:content-[attr(data-label)]',
      }
    : { table: '', head: '', body: '', row: '', name: '', cell: '' };
  return (
    <div className="relative">
      {side.overflows && (
        <p className="border-b border-slate-100 px-3 py-1.5 text-right text-xs text-slate-500" data-testid={testId ? `${testId}-scroll-hint` : undefined}>
          Scroll sideways for more columns <span aria-hidden>→</span>
        </p>
      )}
      <div className="relative">
        <div
          ref={scroller}
          className="overflow-x-auto"
          // A scrolling region is reachable by keyboard (arrow keys scroll it).
          tabIndex={side.overflows ? 0 : undefined}
          role={side.overflows ? 'region' : undefined}
          aria-label={side.overflows ? `${caption} (scrolls sideways)` : undefined}
          data-testid={testId ? `${testId}-scroller` : undefined}
        >
          <table className={`min-w-full divide-y divide-slate-200 text-sm ${card.table}`} data-testid={testId}>
            <caption className="sr-only">{caption}</caption>
            <thead className={`bg-slate-50 ${card.head}`}>
              <tr>
                {columns.map((c, i) => (
                  <th key={c.label} scope="col" className={`px-3 py-2 text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase ${align(i)}`}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className={`divide-y divide-slate-100 ${card.body}`}>
              {rows.map((r) => (
                <tr key={r.key} className={card.row} data-testid={testId ? `${testId}-row` : undefined} data-row={r.key}>
                  {r.cells.map((cell, i) =>
                    i === 0 ? (
                      <th key={i} scope="row" className={`px-3 py-2 font-medium whitespace-nowrap text-slate-800 ${align(i)} ${card.name}`}>
                        {cell}
                      </th>
                    ) : (
                      <td key={i} data-label={columns[i]?.label} className={`px-3 py-2 whitespace-nowrap text-slate-700 ${align(i)} ${card.cell}`}>
                        {cell}
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div aria-hidden className={`${FADE} left-0 bg-linear-to-r ${side.left ? 'opacity-100' : 'opacity-0'}`} />
        <div aria-hidden className={`${FADE} right-0 bg-linear-to-l ${side.right ? 'opacity-100' : 'opacity-0'}`} data-testid={testId ? `${testId}-fade` : undefined} />
      </div>
    </div>
  );
}
