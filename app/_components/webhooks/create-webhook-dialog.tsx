'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { DashboardEnvironment } from '@/app/_lib/environment';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { EVENT_TYPES } from '@/app/_lib/event-types';
import { revealProblem } from '@/app/_lib/reveal';
import type { CreatedWebhook } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, TextField } from '../ui';
import { EventsField } from './events-field';

interface Problem {
  message: string;
  param: string | null;
}

const FIELDS = ['url', 'description', 'events'];
/** Where each field's problem is shown (see revealProblem). */
const TARGETS: Record<string, string> = { url: 'webhook-url', description: 'webhook-description', events: 'events-error' };

/** The field a server error belongs to (`events.2` → `events`). */
const placeOf = (param: string | null) => (param ? param.split('.')[0]! : null);

/** Checks what the browser can check; the server validates everything again (and the address). */
function validate(url: string, events: string[]): Problem | null {
  if (!url.trim()) return { message: 'Enter the URL events are sent to.', param: 'url' };
  let parsed: URL | null = null;
  try {
    parsed = new URL(url.trim());
  } catch {
    // Reported below.
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    return { message: 'Enter a full URL, starting with https://', param: 'url' };
  }
  if (events.length === 0) return { message: 'Select at least one event type, or all events.', param: 'events' };
  return null;
}

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
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [problem, setProblem] = useState<Problem | null>(null);

  const clear = (param: string) => setProblem((p) => (placeOf(p?.param ?? null) === param ? null : p));
  const fieldError = (param: string) => (problem && placeOf(problem.param) === param ? problem.message : null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const local = validate(url, events);
    setProblem(local);
    if (local) return revealProblem(TARGETS[placeOf(local.param) ?? ''] ?? null);
    try {
      // In the list's order, whatever order they were ticked in.
      const chosen = events.includes('*') ? ['*'] : EVENT_TYPES.filter((t) => events.includes(t));
      const webhook = await create.mutateAsync({ url: url.trim(), events: chosen, description: description.trim() || null });
      onCreated(webhook);
    } catch (err) {
      const param = apiErrorOf(err)?.param ?? null;
      setProblem({ message: errorMessage(err), param });
      revealProblem(TARGETS[placeOf(param) ?? ''] ?? null);
    }
  }

  return (
    <Modal
      title="Add an endpoint"
      description={`Events of ${environment === 'test' ? 'test' : 'live'} mode are POSTed to it, signed with a secret shown once, right after creation.`}
      onClose={onClose}
      dismissible={!create.isPending}
      onSubmit={onSubmit}
      testId="create-webhook-dialog"
      size="lg"
      footer={<ModalActions label="Add endpoint" onCancel={onClose} pending={create.isPending} testId="create-webhook-submit" />}
    >
      <div className="space-y-6">
        {problem && !FIELDS.includes(placeOf(problem.param) ?? '') && <Alert data-testid="create-webhook-error">{problem.message}</Alert>}
        <TextField
          id="webhook-url"
          type="url"
          inputMode="url"
          label="Endpoint URL"
          placeholder="https://example.com/webhooks"
          hint={environment === 'live' ? 'Live endpoints must use https and a public address.' : 'A public address; http is accepted in test mode.'}
          value={url}
          onChange={(e) => {
            setUrl(e.target.value);
            clear('url');
          }}
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
          value={description}
          onChange={(e) => {
            setDescription(e.target.value);
            clear('description');
          }}
          maxLength={500}
          error={fieldError('description')}
        />
        <EventsField
          value={events}
          onChange={(next) => {
            setEvents(next);
            clear('events');
          }}
          error={fieldError('events')}
        />
      </div>
    </Modal>
  );
}
