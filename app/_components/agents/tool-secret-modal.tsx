'use client';

import { SecretField } from '../copy';
import { Modal } from '../modal';
import { Alert, Button } from '../ui';

// The new agent's tool-signing secret, shown once (like a key's secret): its HTTP tools receive
// requests signed with it (Standard Webhooks headers), so they can refuse anyone else.
export function ToolSecretModal({ agentName, secret, onDone }: { agentName: string; secret: string; onDone: () => void }) {
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
        <SecretField id="tool-secret" label="Tool signing secret" value={secret} testId="tool-secret" statusTestId="tool-secret-copy-status" />
        <p className="text-sm text-slate-600">
          Every tool call carries the <code className="font-mono text-xs">webhook-id</code>, <code className="font-mono text-xs">webhook-timestamp</code>{' '}
          and <code className="font-mono text-xs">webhook-signature</code> headers of the Standard Webhooks spec: verify them with this secret, for
          example with the <code className="font-mono text-xs">standardwebhooks</code> library.
        </p>
      </div>
    </Modal>
  );
}
