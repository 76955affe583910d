'use client';

import Link from 'next/link';
import { useRef } from 'react';
import { selectContents, useCopy } from './copy';
import { cx } from './ui';

// An identifier (`exe_…`, `sch_…`, `conv_…`) as one unbroken token: it never wraps in the
// middle; where the line is too short it is cut with an ellipsis, the whole id in its title and
// a copy button beside it. `href`: the id links to the page that shows it.

function CopyIcon({ done }: { done: boolean }) {
  return (
    <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth={1.6} className="size-3.5" aria-hidden>
      {done ? (
        <path d="m5 10.5 3 3 7-7" strokeLinecap="round" strokeLinejoin="round" />
      ) : (
        <>
          <rect x="7" y="7" width="9" height="9" rx="1.5" />
          <path d="M13 7V5.5A1.5 1.5 0 0 0 11.5 4h-6A1.5 1.5 0 0 0 4 5.5v6A1.5 1.5 0 0 0 5.5 13H7" />
        </>
      )}
    </svg>
  );
}

export function IdText({ value, href, testId, copy = true, className }: { value: string; href?: string; testId?: string; copy?: boolean; className?: string }) {
  const ref = useRef<HTMLElement>(null);
  const copier = useCopy(() => selectContents(ref));
  const text = (
    <code ref={ref} className="block min-w-0 truncate font-mono text-xs whitespace-nowrap" title={value} data-testid={testId}>
      {value}
    </code>
  );
  return (
    <span className={cx('inline-flex max-w-full min-w-0 items-center gap-1 align-middle', className)} data-id-text>
      {href ? (
        <Link href={href} className="flex min-w-0 text-indigo-600 hover:text-indigo-500">
          {text}
        </Link>
      ) : (
        text
      )}
      {copy && (
        <button
          type="button"
          onClick={() => void copier.copy(value)}
          className="shrink-0 rounded p-0.5 text-slate-400 hover:bg-slate-100 hover:text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-600"
          aria-label={copier.state === 'copied' ? 'Copied' : `Copy ${value}`}
          title={copier.state === 'copied' ? 'Copied' : 'Copy'}
        >
          <CopyIcon done={copier.state === 'copied'} />
        </button>
      )}
    </span>
  );
}
