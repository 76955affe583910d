'use client';

import { useEffect, useState, type RefObject } from 'react';

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
export const SECRET_FIELD =
  'block w-full resize-none rounded-md border-0 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900 ring-1 ring-slate-300 outline-none ring-inset [field-sizing:content] focus:ring-2 focus:ring-indigo-600';
