'use client';

import Link from 'next/link';
import type { ReactNode } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { Button, ButtonLink, Card, Spinner } from './ui';

// The empty and failed states of a list or a page, in the keys page's style.

export function LoadError({ what, error, onRetry, testId }: { what: string; error: unknown; onRetry: () => void; testId: string }) {
  return (
    <div className="flex flex-col items-center gap-3 px-6 py-12 text-center" data-testid={testId} role="alert">
      <p className="font-medium text-slate-900">{what} could not be loaded.</p>
      <p className="text-sm text-slate-600">{errorMessage(error)}</p>
      <div className="flex gap-2">
        <Button variant="secondary" onClick={onRetry}>
          Try again
        </Button>
        {apiErrorOf(error)?.code === 'unauthenticated' && <ButtonLink href="/signin">Sign in</ButtonLink>}
      </div>
    </div>
  );
}

/** A detail page loading: its title, a wide card and a narrow one. */
export function PageSkeleton({ label, testId }: { label: string; testId: string }) {
  return (
    <div className="space-y-6" aria-busy="true" aria-label={label} data-testid={testId}>
      <div className="h-8 w-64 animate-pulse rounded bg-slate-200" />
      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="h-96 animate-pulse lg:col-span-2" />
        <Card className="h-96 animate-pulse" />
      </div>
    </div>
  );
}

/** What a paged list query offers its footer (a tRPC infinite query). */
interface PagedList {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
  isError: boolean;
  error: unknown;
}

/** Under a loaded list: "Load more" while there are more pages, and the error of a page that failed. */
export function ListFooter({ list }: { list: PagedList }) {
  return (
    <>
      {list.hasNextPage && (
        <div className="flex justify-center border-t border-slate-100 px-4 py-3">
          <Button variant="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage} data-testid="load-more">
            {list.isFetchingNextPage && <Spinner />}
            Load more
          </Button>
        </div>
      )}
      {list.isError && (
        <p role="alert" className="px-4 pb-3 text-center text-sm text-red-600">
          {errorMessage(list.error)}
        </p>
      )}
    </>
  );
}

export function EmptyState({
  icon,
  title,
  children,
  action,
  tone = 'indigo',
  testId,
}: {
  icon: ReactNode;
  title: ReactNode;
  children?: ReactNode;
  action?: ReactNode;
  tone?: 'indigo' | 'amber';
  testId: string;
}) {
  return (
    <div className="flex flex-col items-center px-6 py-14 text-center" data-testid={testId}>
      <div aria-hidden className={`grid size-12 place-items-center rounded-full ${tone === 'amber' ? 'bg-amber-100 text-amber-700' : 'bg-indigo-50 text-indigo-600'}`}>
        {icon}
      </div>
      <h2 className="mt-4 font-semibold text-slate-900">{title}</h2>
      {children && <p className="mt-1 max-w-md text-sm text-slate-600">{children}</p>}
      {action && <div className="mt-5">{action}</div>}
    </div>
  );
}

const ICON = { viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 1.8, strokeLinecap: 'round', strokeLinejoin: 'round', className: 'size-6' } as const;

export function AgentIcon() {
  return (
    <svg {...ICON}>
      <rect x="4" y="7" width="16" height="12" rx="3" />
      <path d="M12 3v4M9 12h.01M15 12h.01M9.5 15.5h5" />
    </svg>
  );
}

export function RunIcon() {
  return (
    <svg {...ICON}>
      <circle cx="12" cy="12" r="9" />
      <path d="m10 8.5 5 3.5-5 3.5z" />
    </svg>
  );
}

export function WebhookIcon() {
  return (
    <svg {...ICON}>
      <path d="M9 7.5a3.5 3.5 0 1 1 5.2 3.05L17 16" />
      <path d="M6.6 13.6a3.5 3.5 0 1 0 3.9 5.4H17" />
      <circle cx="17.5" cy="16.5" r="3" />
    </svg>
  );
}

export function ApprovalIcon() {
  return (
    <svg {...ICON}>
      <path d="M12 3 19 6v5c0 4.5-3 8-7 10-4-2-7-5.5-7-10V6z" />
      <path d="m9 12 2 2 4-4" />
    </svg>
  );
}

export function EventIcon() {
  return (
    <svg {...ICON}>
      <path d="M4 6h16M4 12h10M4 18h7" />
      <circle cx="18" cy="16" r="3" />
    </svg>
  );
}

export function ClockIcon() {
  return (
    <svg {...ICON}>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7v5l3 2" />
    </svg>
  );
}

export function ChatIcon() {
  return (
    <svg {...ICON}>
      <path d="M5 5h14a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1h-8l-4 3v-3H5a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z" />
      <path d="M8 9.5h8M8 12.5h5" />
    </svg>
  );
}

export function DatasetIcon() {
  return (
    <svg {...ICON}>
      <ellipse cx="12" cy="6" rx="7" ry="2.5" />
      <path d="M5 6v6c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5V6" />
      <path d="M5 12v6c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5v-6" />
    </svg>
  );
}

export function ExperimentIcon() {
  return (
    <svg {...ICON}>
      <path d="M9.5 3h5M10 3v6l-5.2 8.6A2 2 0 0 0 6.5 20.6h11a2 2 0 0 0 1.7-3L14 9V3" />
      <path d="M7.5 14.5h9" />
    </svg>
  );
}

export function GaugeIcon() {
  return (
    <svg {...ICON}>
      <path d="M4.5 17a8 8 0 1 1 15 0" />
      <path d="m12 13 3.5-4" />
      <circle cx="12" cy="13" r="1.2" />
    </svg>
  );
}

/** "Agents / Support bot": the way back to a list from a detail page. */
export function Breadcrumb({ href, parent, current }: { href: string; parent: string; current: ReactNode }) {
  return (
    <nav aria-label="Breadcrumb" className="flex min-w-0 items-center gap-1.5 text-sm text-slate-500">
      <Link href={href} className="shrink-0 hover:text-slate-900">
        {parent}
      </Link>
      <span aria-hidden>/</span>
      <span className="truncate text-slate-700">{current}</span>
    </nav>
  );
}
