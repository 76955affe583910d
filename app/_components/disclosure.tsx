'use client';

import { useState, type ReactNode } from 'react';

// Lists whose items open in place (the event log, a webhook's delivery log).

/** Which items are open, and a toggle for one of them (by id). */
export function useOpenSet() {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return { open, toggle };
}

/** The summary line of a list's row that opens in place (the event log, the audit log). */
export const ROW_TOGGLE =
  'flex w-full items-start gap-3 px-4 py-3 text-left hover:bg-slate-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600 sm:px-5';

/** An item's summary line as the button that opens its panel (`controls`), after a turning ▸. */
export function DisclosureButton({
  open,
  controls,
  onToggle,
  className,
  testId,
  children,
}: {
  open: boolean;
  controls: string;
  onToggle: () => void;
  className: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <button type="button" aria-expanded={open} aria-controls={controls} onClick={onToggle} className={className} data-testid={testId}>
      <span aria-hidden className={`mt-0.5 inline-block text-slate-400 transition-transform ${open ? 'rotate-90' : ''}`}>
        ▸
      </span>
      {children}
    </button>
  );
}
