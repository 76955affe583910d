'use client';

import { formatDateTime } from '@/app/_lib/dates';
import { SecretField } from '../copy';
import { SecretModalFrame } from '../modal';

const code = (text: string) => <code className="font-mono text-xs">{text}</code>;

// An agent's tool-signing secret, shown once (like a key's secret): after creation, or after a
// rotation (then the previous secret keeps signing until `previousExpiresAt`). Its HTTP tools
// receive requests signed with it (Standard Webhooks headers), so they can refuse anyone else.
// The parent drops the secret from its state on "Done", so nothing on the page shows it again.
export function ToolSecretModal({ agentName, secret, previousExpiresAt, onDone }: { agentName: string; secret: string; previousExpiresAt?: string; onDone: () => void }) {
  const rotated = previousExpiresAt !== undefined;
  return (
    <SecretModalFrame
      title={rotated ? 'Save the new tool signing secret' : 'Save the tool signing secret'}
      description={
        <>
          {rotated ? 'The tool secret of ' : ''}
          <span className="font-medium text-slate-800">{agentName}</span> {rotated ? 'was rotated.' : 'was created.'}
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
      {rotated && (
        <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-200" data-testid="previous-tool-secret-note">
          The previous secret keeps signing for 24 hours, until <strong className="font-semibold">{formatDateTime(previousExpiresAt)}</strong>: until
          then each tool call carries both signatures, so your endpoints can switch to the new secret without refusing a call.
        </p>
      )}
      <p className="text-sm text-slate-600">
        Every tool call carries the {code('webhook-id')}, {code('webhook-timestamp')} and {code('webhook-signature')} headers of the Standard
        Webhooks spec, signed over the method, the URL and the body: verify {code('`${method} ${url}\\n${rawBody}`')} with this secret, for example
        with the {code('standardwebhooks')} library ({code('verify(content, headers, { jsonParse: false })')}).
      </p>
    </SecretModalFrame>
  );
}
