import type { ReactNode } from 'react';
import { cx } from './ui';

// One row of a detail page's facts card (agent settings, execution details, webhook details):
// a narrow label column, so values such as ids get most of the card's width.

export function DetailRow({ label, children, testId, dense = false }: { label: string; children: ReactNode; testId?: string; dense?: boolean }) {
  return (
    <div className={cx('grid grid-cols-[5.5rem_minmax(0,1fr)] gap-3 px-4 sm:px-5', dense ? 'py-2.5' : 'py-3')} data-testid={testId}>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="min-w-0 text-sm break-words text-slate-800">{children}</dd>
    </div>
  );
}
