'use client';

import { useEffect, useRef, useState, type RefObject } from 'react';
import type { CreatedKey, StarterCall } from '@/app/_lib/types';
import { CopyStatus, SecretField, selectContents, useCopy } from '../copy';
import { SecretModalFrame } from '../modal';
import { Badge, Button } from '../ui';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

const code = (text: string) => <code className="font-mono text-[0.95em] text-slate-800">{text}</code>;

/** Whether the element's `content` is wider than its box (so it scrolls sideways), kept up to date. */
function useOverflowsX(ref: RefObject<HTMLElement | null>, content: unknown): boolean {
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, content]);
  return overflows;
}

// Shows a new key's secret exactly once, with a first request to try it. The parent drops the
// key from its state on "Done", so nothing on the page can show it again.
export function SecretModal({ created, calls, onDone }: { created: CreatedKey; calls: readonly StarterCall[]; onDone: () => void }) {
  const curlRef = useRef<HTMLPreElement>(null);
  const curlCopy = useCopy(() => selectContents(curlRef));

  // The first GET this key's scopes allow; otherwise the first one there is (it answers 403).
  const call = calls.find((c) => created.scopes.some((s) => s === c.scope)) ?? calls[0];
  const allowed = call !== undefined && created.scopes.some((s) => s === call.scope);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  // One argument a line, each but the last ending in " \"; a line never wraps (the block scrolls
  // sideways instead), so the key stays whole and no "\" is left alone on a line.
  const curl = call ? [`curl ${origin}${call.path}`, `-H "Authorization: Bearer ${created.key}"`].join(' \\\n  ') : null;
  const curlScrolls = useOverflowsX(curlRef, curl);

  return (
    <SecretModalFrame
      title="Save your API key"
      description={
        <>
          <span className="font-medium text-slate-800">{created.name}</span> was created in{' '}
          {created.environment === 'test' ? 'test mode' : 'live mode'}.
        </>
      }
      warning={
        <>
          <strong className="font-semibold">Copy this key now.</strong> For your security it will not be shown again. If you lose it,
          revoke it and create a new one. Keep it out of source control.
        </>
      }
      onDone={onDone}
      testId="secret-modal"
      doneTestId="secret-done"
    >
      <SecretField
        id="new-key-secret"
        label="Secret key"
        badge={<Badge tone={created.environment === 'test' ? 'amber' : 'green'}>{ENVIRONMENT_WORDS[created.environment]}</Badge>}
        value={created.key}
        testId="secret"
        statusTestId="copy-status"
      />

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
          {/* Focusable, so the keyboard can scroll it too. */}
          <pre
            ref={curlRef}
            tabIndex={0}
            aria-labelledby="first-request-label"
            data-testid="secret-curl"
            className="overflow-x-auto rounded-md bg-slate-900 px-3 py-2.5 font-mono text-xs leading-relaxed whitespace-pre text-slate-100 [color-scheme:dark] focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            {curl}
          </pre>
          {curlScrolls && (
            <p className="text-xs text-slate-500" data-testid="secret-curl-scroll-hint">
              Scroll the command sideways to see all of it, or copy it whole.
            </p>
          )}
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
          <p className="text-xs break-words text-slate-500" data-testid="secret-sdk-note">
            From TypeScript, the typed client takes this key: {code(`new Client({ apiKey, baseUrl: '${origin}' })`)} (
            <a href="/docs" className="font-medium text-indigo-600 hover:text-indigo-500">
              API reference
            </a>
            : each call shows its client example beside curl).
          </p>
        </div>
      )}
    </SecretModalFrame>
  );
}
