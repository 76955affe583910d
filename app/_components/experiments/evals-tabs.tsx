'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

// The evals pages' own navigation (the header has one "Evals" link for them all): Experiments |
// Datasets, above every page of either, the current one marked.

const TABS = [
  { href: '/dashboard/experiments', label: 'Experiments', id: 'experiments' },
  { href: '/dashboard/datasets', label: 'Datasets', id: 'datasets' },
];

export function EvalsTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Evals" className="-mt-2 mb-6 flex gap-1 border-b border-slate-200 text-sm" data-testid="evals-tabs">
      {TABS.map((t) => {
        const current = pathname === t.href || pathname.startsWith(`${t.href}/`);
        return (
          <Link
            key={t.href}
            href={t.href}
            aria-current={current ? 'page' : undefined}
            className={`-mb-px border-b-2 px-3 py-2 font-medium whitespace-nowrap ${current ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900'}`}
            data-testid={`evals-tab-${t.id}`}
          >
            {t.label}
          </Link>
        );
      })}
    </nav>
  );
}
