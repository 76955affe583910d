'use client';

import { SecretField } from '../copy';
import { SecretModalFrame } from '../modal';

// The new agent's tool-signing secret, shown once (like a key's secret): its HTTP tools receive
// requests signed with it (Standard Webhooks headers), so they can refuse anyone else.
export function ToolSecretModal({ agentName, secret, onDone }: { agentName: string; secret: string; onDone: () => void }) {
  return (
    <SecretModalFrame
      title="Save the tool signing secret"
      description={
        <>
          <span className="font-medium text-slate-800">{agentName}</span> was created.
        </>
      }
      warning={
        <>
          <strong className="font-semibold">Copy this secret now.</strong> It will not be shown again. Your tool endpoints use it to check that a
          request comes from this agent.
        </>
      }
      onDone={onDone}
      testId="tool-secret-modal"
      doneTestId="tool-secret-done"
    >
      <SecretField id="tool-secret" label="Tool signing secret" value={secret} testId="tool-secret" statusTestId="tool-secret-copy-status" />
      <p className="text-sm text-slate-600">
        Every tool call carries the <code className="font-mono text-xs">webhook-id</code>, <code className="font-mono text-xs">webhook-timestamp</code>{' '}
        and <code className="font-mono text-xs">webhook-signature</code> headers of the Standard Webhooks spec: verify them with this secret, for
        example with the <code className="font-mono text-xs">standardwebhooks</code> library.
      </p>
    </SecretModalFrame>
  );
}
