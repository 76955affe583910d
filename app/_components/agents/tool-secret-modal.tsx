'use client';

import { useRef } from 'react';
import { CopyStatus, SECRET_FIELD, useCopy } from '../copy';
import { Modal } from '../modal';
import { Alert, Button } from '../ui';

// The new agent's tool-signing secret, shown once (like a key's secret): its HTTP tools receive
// requests signed with it (Standard Webhooks headers), so they can refuse anyone else.
export function ToolSecretModal({ agentName, secret, onDone }: { agentName: string; secret: string; onDone: () => void }) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const copy = useCopy(() => {
    ref.current?.focus();
    ref.current?.select();
  });

  return (
    <Modal
      title="Save the tool signing secret"
      description={
        <>
          <span className="font-medium text-slate-800">{agentName}</span> was created.
        </>
      }
      onClose={onDone}
      dismissible={false}
      testId="tool-secret-modal"
      size="lg"
      footer={
        <Button onClick={onDone} data-testid="tool-secret-done">
          Done
        </Button>
      }
    >
      <div className="space-y-5">
        <Alert tone="amber">
          <strong className="font-semibold">Copy this secret now.</strong> It will not be shown again. Your tool endpoints use it to check that a
          request comes from this agent.
        </Alert>
        <div className="space-y-1.5">
          <div className="flex items-center justify-between gap-3">
            <label htmlFor="tool-secret" className="text-sm font-medium text-slate-800">
              Tool signing secret
            </label>
            <Button variant="secondary" onClick={() => void copy.copy(secret)} data-testid="tool-secret-copy" className="shrink-0">
              {copy.state === 'copied' ? 'Copied' : 'Copy'}
            </Button>
          </div>
          <textarea
            ref={ref}
            id="tool-secret"
            readOnly
            rows={2}
            value={secret}
            onFocus={(e) => e.currentTarget.select()}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            data-testid="tool-secret-value"
            className={SECRET_FIELD}
          />
          <CopyStatus state={copy.state} testId="tool-secret-copy-status" />
        </div>
        <p className="text-sm text-slate-600">
          Every tool call carries the <code className="font-mono text-xs">webhook-id</code>, <code className="font-mono text-xs">webhook-timestamp</code>{' '}
          and <code className="font-mono text-xs">webhook-signature</code> headers of the Standard Webhooks spec: verify them with this secret, for
          example with the <code className="font-mono text-xs">standardwebhooks</code> library.
        </p>
      </div>
    </Modal>
  );
}
