'use client';

import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { Button } from './ui';

// Copying a one-time secret: the clipboard when the browser allows it, else the text is
// selected for Ctrl+C. Shared by the key and agent secret modals.

export type CopyState = 'idle' | 'copied' | 'manual';

/** Copies text to the clipboard; when the browser refuses, selects it for Ctrl+C instead. */
export function useCopy(select: () => void) {
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const t = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(t);
  }, [state]);

  async function copy(text: string) {
    try {
      if (!navigator.clipboard) throw new Error('Clipboard API unavailable');
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      // Not a secure context, or permission denied: let the user copy the selected text.
      select();
      setState('manual');
    }
  }
  return { state, copy };
}

export function selectContents(ref: RefObject<HTMLElement | null>) {
  const el = ref.current;
  const selection = window.getSelection();
  if (!el || !selection) return;
  const range = document.createRange();
  range.selectNodeContents(el);
  selection.removeAllRanges();
  selection.addRange(range);
}

export function CopyStatus({ state, testId }: { state: CopyState; testId: string }) {
  return (
    <p aria-live="polite" className="text-xs" data-testid={testId}>
      {state === 'copied' && <span className="text-emerald-700">Copied to the clipboard.</span>}
      {state === 'manual' && <span className="text-slate-600">Selected: press Ctrl+C (⌘C on a Mac) to copy.</span>}
    </p>
  );
}

/** The read-only field a secret is shown in (selected on focus, wraps instead of scrolling). */
const SECRET_FIELD =
  'block w-full resize-none rounded-md border-0 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900 ring-1 ring-slate-300 outline-none ring-inset [field-sizing:content] focus:ring-2 focus:ring-indigo-600';

/**
 * A secret shown once: its label (and `badge`), a Copy button, the read-only field (selected on
 * focus, or for a manual copy where the clipboard is refused) and the copy status.
 * Test ids: `<testId>-copy`, `<testId>-value`, and `statusTestId`.
 */
export function SecretField({ id, label, badge, value, testId, statusTestId }: { id: string; label: string; badge?: ReactNode; value: string; testId: string; statusTestId: string }) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const copy = useCopy(() => {
    ref.current?.focus();
    ref.current?.select();
  });
  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between gap-3">
        <div className="flex items-center gap-2">
          <label htmlFor={id} className="text-sm font-medium text-slate-800">
            {label}
          </label>
          {badge}
        </div>
        <Button variant="secondary" onClick={() => void copy.copy(value)} data-testid={`${testId}-copy`} className="shrink-0">
          {copy.state === 'copied' ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <textarea
        ref={ref}
        id={id}
        readOnly
        rows={2}
        value={value}
        onFocus={(e) => e.currentTarget.select()}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        data-testid={`${testId}-value`}
        className={SECRET_FIELD}
      />
      <CopyStatus state={copy.state} testId={statusTestId} />
    </div>
  );
}

/**
 * A link shown once (an invitation's): text, not a form field, with a Copy button. It may wrap
 * only where the path ends and the token begins — the token itself is never split, so what is
 * read or copied by hand is whole (on a phone it is set a size smaller to fit its line).
 * Test ids: `<testId>-copy`, `<testId>-value`, and `statusTestId`.
 */
export function LinkField({ label, url, testId, statusTestId }: { label: string; url: string; testId: string; statusTestId: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const copy = useCopy(() => selectContents(ref));
  const cut = url.lastIndexOf('/') + 1;
  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between gap-3">
        <p className="text-sm font-medium text-slate-800">{label}</p>
        <Button variant="secondary" onClick={() => void copy.copy(url)} data-testid={`${testId}-copy`} className="shrink-0">
          {copy.state === 'copied' ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <p
        ref={ref}
        className="rounded-md bg-slate-50 px-3 py-2 font-mono text-[11px] leading-5 text-slate-900 ring-1 ring-slate-300 ring-inset select-all sm:text-sm"
        data-testid={`${testId}-value`}
      >
        {url.slice(0, cut)}
        <wbr />
        <span className="whitespace-nowrap">{url.slice(cut)}</span>
      </p>
      <CopyStatus state={copy.state} testId={statusTestId} />
    </div>
  );
}
