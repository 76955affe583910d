import type { ReactNode } from 'react';
import { Card } from '../ui';

/** One section of the execution page: a card with its title (and what sits beside it), then its content. */
export function Section({ title, children, testId, aside }: { title: string; children: ReactNode; testId?: string; aside?: ReactNode }) {
  return (
    <Card className="overflow-hidden" data-testid={testId}>
      <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <h2 className="font-semibold text-slate-900">{title}</h2>
        {aside}
      </div>
      {children}
    </Card>
  );
}
