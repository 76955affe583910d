'use client';

import { useEffect, useRef, useState, type RefObject } from 'react';
import type { CreatedKey, StarterCall } from '@/app/_lib/types';
import { Modal } from '../modal';
import { Alert, Badge, Button } from '../ui';

type CopyState = 'idle' | 'copied' | 'manual';

/** Copies text to the clipboard; when the browser refuses, selects it for Ctrl+C instead. */
function useCopy(select: () => void) {
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

function selectContents(ref: RefObject<HTMLElement | null>) {
  const el = ref.current;
  const selection = window.getSelection();
  if (!el || !selection) return;
  const range = document.createRange();
  range.selectNodeContents(el);
  selection.removeAllRanges();
  selection.addRange(range);
}

function CopyStatus({ state, testId }: { state: CopyState; testId: string }) {
  return (
    <p aria-live="polite" className="text-xs" data-testid={testId}>
      {state === 'copied' && <span className="text-emerald-700">Copied to the clipboard.</span>}
      {state === 'manual' && <span className="text-slate-600">Selected: press Ctrl+C (⌘C on a Mac) to copy.</span>}
    </p>
  );
}

const code = (text: string) => <code className="font-mono text-[0.95em] text-slate-800">{text}</code>;

// Shows a new key's secret exactly once, with a first request to try it. The parent drops the
// key from its state on "Done", so nothing on the page can show it again.
export function SecretModal({ created, calls, onDone }: { created: CreatedKey; calls: readonly StarterCall[]; onDone: () => void }) {
  const secretRef = useRef<HTMLTextAreaElement>(null);
  const curlRef = useRef<HTMLPreElement>(null);
  const secretCopy = useCopy(() => {
    secretRef.current?.focus();
    secretRef.current?.select();
  });
  const curlCopy = useCopy(() => selectContents(curlRef));

  // The first GET this key's scopes allow; otherwise the first one there is (it answers 403).
  const call = calls.find((c) => created.scopes.some((s) => s === c.scope)) ?? calls[0];
  const allowed = call !== undefined && created.scopes.some((s) => s === call.scope);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const curl = call ? `curl ${origin}${call.path} \\\n  -H "Authorization: Bearer ${created.key}"` : null;

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
      size="lg"
      footer={
        <Button onClick={onDone} data-testid="secret-done">
          Done
        </Button>
      }
    >
      <div className="space-y-5">
        <Alert tone="amber">
          <strong className="font-semibold">Copy this key now.</strong> For your security it will not be shown again. If you lose it,
          revoke it and create a new one. Keep it out of source control.
        </Alert>

        <div className="space-y-1.5">
          <div className="flex items-center justify-between gap-3">
            <div className="flex items-center gap-2">
              <label htmlFor="new-key-secret" className="text-sm font-medium text-slate-800">
                Secret key
              </label>
              <Badge tone={created.environment === 'test' ? 'amber' : 'green'}>{created.environment}</Badge>
            </div>
            <Button variant="secondary" onClick={() => void secretCopy.copy(created.key)} data-testid="secret-copy" className="shrink-0">
              {secretCopy.state === 'copied' ? 'Copied' : 'Copy'}
            </Button>
          </div>
          <textarea
            ref={secretRef}
            id="new-key-secret"
            readOnly
            rows={2}
            value={created.key}
            onFocus={(e) => e.currentTarget.select()}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            data-testid="secret-value"
            className="block w-full resize-none rounded-md border-0 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900 ring-1 ring-slate-300 outline-none ring-inset [field-sizing:content] focus:ring-2 focus:ring-indigo-600"
          />
          <CopyStatus state={secretCopy.state} testId="copy-status" />
        </div>

        {call && curl && (
          <div className="space-y-1.5">
            <div className="flex items-center justify-between gap-3">
              <p className="text-sm font-medium text-slate-800" id="first-request-label">
                Try it
              </p>
              <Button variant="secondary" onClick={() => void curlCopy.copy(curl)} data-testid="secret-curl-copy" className="shrink-0">
                {curlCopy.state === 'copied' ? 'Copied' : 'Copy'}
              </Button>
            </div>
            <pre
              ref={curlRef}
              aria-labelledby="first-request-label"
              data-testid="secret-curl"
              className="rounded-md bg-slate-900 px-3 py-2.5 font-mono text-[13px] leading-relaxed break-all whitespace-pre-wrap text-slate-100"
            >
              {curl}
            </pre>
            <CopyStatus state={curlCopy.state} testId="curl-copy-status" />
            <p className="text-xs text-slate-500" data-testid="secret-curl-note">
              {allowed ? (
                <>
                  {code(`GET ${call.path}`)} needs the {code(call.scope)} scope, which this key has: expect {code('200')} with JSON.
                </>
              ) : (
                <>
                  This key has none of the scopes a simple {code('GET')} here needs, so this call answers{' '}
                  {code('403 insufficient_scope')}: that still shows the key is accepted (an unknown key gets {code('401')}). A key with{' '}
                  {code(call.scope)} gets {code('200')}.
                </>
              )}
            </p>
          </div>
        )}
      </div>
    </Modal>
  );
}
