import type { ReactNode } from 'react';

// JSON for people: pretty-printed, wrapped (never a sideways scroll on a phone), and folded
// away behind its label when `collapsible`.

export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? 'null';
}

const PRE = 'overflow-x-auto rounded-md bg-slate-900 px-3 py-2.5 font-mono text-xs leading-relaxed break-words whitespace-pre-wrap text-slate-100';

export function JsonBlock({
  value,
  label,
  collapsible = false,
  open = false,
  tone = 'default',
  testId,
}: {
  value: unknown;
  label?: ReactNode;
  collapsible?: boolean;
  open?: boolean;
  tone?: 'default' | 'error';
  testId?: string;
}) {
  const pre = (
    <pre className={`${PRE} ${tone === 'error' ? 'ring-2 ring-red-400' : ''}`} data-testid={testId}>
      {prettyJson(value)}
    </pre>
  );
  if (!collapsible) {
    return (
      <div className="min-w-0 space-y-1">
        {label && <p className="text-xs font-medium text-slate-500">{label}</p>}
        {pre}
      </div>
    );
  }
  return (
    <details className="group min-w-0" open={open}>
      <summary className="flex cursor-pointer list-none items-center gap-1.5 text-xs font-medium text-slate-600 select-none hover:text-slate-900 [&::-webkit-details-marker]:hidden">
        <span aria-hidden className="inline-block transition-transform group-open:rotate-90">
          ▸
        </span>
        {label ?? 'JSON'}
      </summary>
      <div className="mt-1.5">{pre}</div>
    </details>
  );
}
