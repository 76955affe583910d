'use client';

import { formatDateTime } from '@/app/_lib/dates';
import { SecretField } from '../copy';
import { SecretModalFrame } from '../modal';
import { Badge } from '../ui';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

const code = (text: string) => <code className="font-mono text-xs">{text}</code>;

// A webhook's signing secret, shown once: after creation, or after a rotation (then the
// previous secret keeps signing until `previousExpiresAt`). The parent drops the secret from its
// state on "Done", so nothing on the page can show it again.
export function WebhookSecretModal({
  url,
  environment,
  secret,
  previousExpiresAt,
  onDone,
}: {
  url: string;
  environment: 'live' | 'test';
  secret: string;
  previousExpiresAt?: string;
  onDone: () => void;
}) {
  const rotated = previousExpiresAt !== undefined;
  return (
    <SecretModalFrame
      title={rotated ? 'Save the new signing secret' : 'Save the signing secret'}
      description={
        <>
          {rotated ? 'The secret of ' : 'Events will be sent to '}
          <span className="font-medium break-all text-slate-800">{url}</span>
          {rotated ? ' was rotated.' : '.'}
        </>
      }
      warning={
        <>
          <strong className="font-semibold">Copy this secret now.</strong> For your security it will not be shown again. If you lose it, rotate it
          to get a new one.
        </>
      }
      onDone={onDone}
      testId="webhook-secret-modal"
      doneTestId="webhook-secret-done"
    >
      <SecretField
        id="webhook-secret"
        label="Signing secret"
        badge={<Badge tone={environment === 'test' ? 'amber' : 'green'}>{ENVIRONMENT_WORDS[environment]}</Badge>}
        value={secret}
        testId="webhook-secret"
        statusTestId="webhook-secret-copy-status"
      />
      {rotated && (
        <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-200" data-testid="previous-secret-note">
          The previous secret keeps signing for 24 hours, until <strong className="font-semibold">{formatDateTime(previousExpiresAt)}</strong>: until
          then each delivery carries both signatures, so your endpoint can switch to the new secret without missing an event.
        </p>
      )}
      <p className="text-sm text-slate-600">
        Each delivery carries the {code('webhook-id')}, {code('webhook-timestamp')} and {code('webhook-signature')} headers of the Standard
        Webhooks spec: verify them with this secret, for example with the {code('standardwebhooks')} library, before trusting the body.
      </p>
    </SecretModalFrame>
  );
}
