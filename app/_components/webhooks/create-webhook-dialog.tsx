'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { Controller, useForm, type FieldErrors } from 'react-hook-form';
import { z } from 'zod';
import type { DashboardEnvironment } from '@/app/_lib/environment';
import { EVENT_TYPES } from '@/app/_lib/event-types';
import { FORM_ERROR, firstWithError, messageOf, showServerError } from '@/app/_lib/forms';
import { revealProblem } from '@/app/_lib/reveal';
import type { CreatedWebhook } from '@/app/_lib/types';
import { createWebhookInput, MAX_DESCRIPTION } from '@/server/modules/webhooks/schemas';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, TextField } from '../ui';
import { EventsField } from './events-field';

// The form's values, as typed, and the server's own createWebhookInput behind them: the event
// types in the list's order (or `*`), an empty description as null. Whether the address may be
// called (https in live mode, public, no credentials) only the server knows: its answer lands
// on the field.

interface WebhookForm {
  url: string;
  description: string;
  events: string[];
}

const draftSchema = z.object({
  url: z.string().trim().min(1, 'Enter the URL events are sent to.'),
  description: z.string().transform((d) => d.trim() || null),
  events: z.array(z.string()).transform((events) => (events.includes('*') ? ['*'] : EVENT_TYPES.filter((t) => events.includes(t)))),
});
const webhookFormSchema = draftSchema.pipe(createWebhookInput as unknown as z.ZodType<z.output<typeof createWebhookInput>, z.output<typeof draftSchema>>);

function webhookMessage(issue: { code: string; path?: PropertyKey[] }): string | undefined {
  switch (issue.path?.[0]) {
    case 'events':
      return issue.code === 'too_small' ? 'Select at least one event type, or all events.' : undefined;
    case 'description':
      return `Use at most ${MAX_DESCRIPTION} characters.`;
    default:
      return undefined;
  }
}

/** Ticked when the dialog opens: how each run ends and starts, what most endpoints are for (docs/decisions.md). */
const DEFAULT_EVENTS = EVENT_TYPES.filter((t) => t.startsWith('execution.'));

const FIELDS = ['url', 'description', 'events'];
/** Where each field's problem is shown (see revealProblem). */
const TARGETS: Record<string, string> = { url: 'webhook-url', description: 'webhook-description', events: 'events-error' };

/** The field a server error belongs to (`events.2` → `events`), or null for the form. */
const placeOf = (param: string) => (FIELDS.includes(param.split('.')[0]!) ? param.split('.')[0]! : null);

export function CreateWebhookDialog({
  environment,
  onClose,
  onCreated,
}: {
  environment: DashboardEnvironment;
  onClose: () => void;
  onCreated: (webhook: CreatedWebhook) => void;
}) {
  const trpc = useTRPC();
  // gcTime 0: the response (which holds the secret) leaves the mutation cache with this dialog.
  const create = useMutation({ ...trpc.webhooks.create.mutationOptions(), gcTime: 0 });
  const { register, control, handleSubmit, setError, formState } = useForm<WebhookForm, unknown, z.output<typeof webhookFormSchema>>({
    defaultValues: { url: '', description: '', events: DEFAULT_EVENTS },
    resolver: zodResolver(webhookFormSchema, { error: webhookMessage }),
    shouldFocusError: false,
  });
  const fieldError = (name: string) => messageOf(formState.errors, name);
  const reveal = (errors: FieldErrors<WebhookForm>) => revealProblem(TARGETS[firstWithError(errors, FIELDS) ?? ''] ?? null);

  const onSubmit = handleSubmit(async (input) => {
    try {
      onCreated(await create.mutateAsync(input));
    } catch (err) {
      revealProblem(TARGETS[showServerError(err, setError, placeOf) ?? ''] ?? null);
    }
  }, reveal);
  const formError = fieldError(FORM_ERROR);

  return (
    <Modal
      title="Add an endpoint"
      description={`Events of ${environment === 'test' ? 'test' : 'live'} mode are POSTed to it, signed with a secret shown once, right after creation.`}
      onClose={onClose}
      dismissible={!create.isPending}
      onSubmit={(e) => void onSubmit(e)}
      testId="create-webhook-dialog"
      size="lg"
      footer={<ModalActions label="Add endpoint" onCancel={onClose} pending={create.isPending} testId="create-webhook-submit" />}
    >
      <div className="space-y-6">
        {formError && <Alert data-testid="create-webhook-error">{formError}</Alert>}
        <TextField
          id="webhook-url"
          type="url"
          inputMode="url"
          label="Endpoint URL"
          placeholder="https://example.com/webhooks"
          hint={environment === 'live' ? 'Live endpoints must use https and a public address.' : 'A public address; http is accepted in test mode.'}
          {...register('url')}
          maxLength={2048}
          autoComplete="off"
          spellCheck={false}
          required
          autoFocus
          error={fieldError('url')}
        />
        <TextField
          id="webhook-description"
          label="Description (optional)"
          placeholder="e.g. Order system"
          {...register('description')}
          maxLength={MAX_DESCRIPTION}
          error={fieldError('description')}
        />
        <Controller control={control} name="events" render={({ field }) => <EventsField value={field.value} onChange={field.onChange} error={fieldError('events')} />} />
      </div>
    </Modal>
  );
}
