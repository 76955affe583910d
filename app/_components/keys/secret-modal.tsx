'use client';

import { useEffect, useRef, useState } from 'react';
import type { CreatedKey } from '@/app/_lib/types';
import { Modal } from '../modal';
import { Alert, Badge, Button } from '../ui';

type CopyState = 'idle' | 'copied' | 'manual';

// Shows a new key's secret exactly once. The parent drops the key from its state on "Done",
// so nothing on the page can show it again.
export function SecretModal({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<CopyState>('idle');

  useEffect(() => {
    if (copy !== 'copied') return;
    const t = setTimeout(() => setCopy('idle'), 2500);
    return () => clearTimeout(t);
  }, [copy]);

  function selectSecret() {
    input.current?.focus();
    input.current?.select();
  }

  async function onCopy() {
    try {
      if (!navigator.clipboard) throw new Error('Clipboard API unavailable');
      await navigator.clipboard.writeText(created.key);
      setCopy('copied');
    } catch {
      // Not a secure context, or permission denied: let the user copy the selected text.
      selectSecret();
      setCopy('manual');
    }
  }

  return (
    <Modal
      title="Save your API key"
      description={
        <>
          <span className="font-medium text-slate-800">{created.name}</span> was created in{' '}
          {created.environment === 'test' ? 'test mode' : 'live mode'}.
        </>
      }
      onClose={onDone}
      dismissible={false}
      testId="secret-modal"
      footer={
        <Button onClick={onDone} data-testid="secret-done">
          Done
        </Button>
      }
    >
      <div className="space-y-4">
        <Alert tone="amber">
          <strong className="font-semibold">Copy this key now.</strong> For your security it will not be shown again. If you lose it,
          revoke it and create a new one.
        </Alert>
        <div className="space-y-1.5">
          <div className="flex items-center justify-between">
            <label htmlFor="new-key-secret" className="text-sm font-medium text-slate-800">
              Secret key
            </label>
            <Badge tone={created.environment === 'test' ? 'amber' : 'green'}>{created.environment}</Badge>
          </div>
          <div className="flex gap-2">
            <input
              ref={input}
              id="new-key-secret"
              readOnly
              value={created.key}
              onFocus={(e) => e.currentTarget.select()}
              spellCheck={false}
              data-testid="secret-value"
              className="block w-full min-w-0 rounded-md border-0 bg-slate-50 outline-none px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600"
            />
            <Button variant="secondary" onClick={onCopy} data-testid="secret-copy" className="shrink-0">
              {copy === 'copied' ? 'Copied' : 'Copy'}
            </Button>
          </div>
          <p aria-live="polite" className="min-h-4 text-xs" data-testid="copy-status">
            {copy === 'copied' && <span className="text-emerald-700">Copied to the clipboard.</span>}
            {copy === 'manual' && <span className="text-slate-600">The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.</span>}
          </p>
        </div>
        <p className="text-xs text-slate-500">
          Use it as <code className="font-mono">Authorization: Bearer {created.prefix}…</code> and keep it out of source control.
        </p>
      </div>
    </Modal>
  );
}
