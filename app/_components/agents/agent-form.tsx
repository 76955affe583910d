'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { revealProblem } from '@/app/_lib/reveal';
import { Alert, ButtonLink, Button, Card, Spinner, TextAreaField, TextField } from '../ui';
import { fieldId, inputOf, validate, type AgentDraft, type Problem } from './agent-draft';
import { ModelField } from './model-field';
import { ToolsEditor } from './tools-editor';

const TOP_FIELDS = ['name', 'description', 'model', 'instructions', 'temperature', 'maxSteps', 'timeoutSeconds'];
const TOOL_FIELDS = ['name', 'description', 'url', 'method', 'parameters'];

/** Where a problem shows: the field its param names (`tools.0.parameters.type` → `tools.0.parameters`), or null for the form. */
function placeOf(param: string | null, toolCount: number): string | null {
  if (!param) return null;
  const [head, index, field] = param.split('.');
  if (head === 'tools') {
    if (index === undefined || !/^\d+$/.test(index) || Number(index) >= toolCount) return 'tools';
    return field && TOOL_FIELDS.includes(field) ? `tools.${index}.${field}` : `tools.${index}`;
  }
  return TOP_FIELDS.includes(head!) ? head! : null;
}

function Section({ title, description, children }: { title: string; description: ReactNode; children: ReactNode }) {
  return (
    <section className="grid gap-4 lg:grid-cols-3 lg:gap-8">
      <div>
        <h2 className="font-semibold text-slate-900">{title}</h2>
        <p className="mt-1 text-sm text-slate-600">{description}</p>
      </div>
      <Card className="space-y-5 p-4 sm:p-6 lg:col-span-2">{children}</Card>
    </section>
  );
}

export function AgentForm({
  initial,
  submitLabel,
  cancelHref,
  pending,
  onSubmit,
}: {
  initial: AgentDraft;
  submitLabel: string;
  cancelHref: string;
  pending: boolean;
  /** Sends the body; a rejection is shown on its field. */
  onSubmit: (input: ReturnType<typeof inputOf>) => Promise<unknown>;
}) {
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<Problem | null>(null);
  const place = placeOf(problem?.param ?? null, draft.tools.length);

  const errorOf = (param: string) => (problem && place === param ? problem.message : null);
  // A field's error goes as soon as the user edits that field (any tool change clears list-level ones).
  const edited = (param: string) =>
    setProblem((p) => {
      const at = placeOf(p?.param ?? null, draft.tools.length);
      return p && (at === param || (param === 'tools' && at?.startsWith('tools')) || at === param.split('.').slice(0, 2).join('.')) ? null : p;
    });
  const set = <K extends keyof AgentDraft>(key: K, value: AgentDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    edited(key);
  };

  function show(next: Problem) {
    setProblem(next);
    const at = placeOf(next.param, draft.tools.length);
    // Bring the field (or the message at the top) into view.
    revealProblem(at ? fieldId(at) : 'agent-form-error');
  }

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const local = validate(draft);
    if (local) return show(local);
    setProblem(null);
    try {
      await onSubmit(inputOf(draft));
    } catch (err) {
      show({ message: errorMessage(err), param: apiErrorOf(err)?.param ?? null });
    }
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-8" data-testid="agent-form">
      {problem && place === null && (
        <Alert id="agent-form-error" tabIndex={-1} data-testid="agent-form-error">
          {problem.message}
        </Alert>
      )}
      <Section title="Agent" description="How you and your team recognise it in the dashboard and the API.">
        <TextField id="agent-name" label="Name" placeholder="e.g. Support assistant" value={draft.name} onChange={(e) => set('name', e.target.value)} maxLength={100} required autoFocus error={errorOf('name')} />
        <TextAreaField id="agent-description" label="Description (optional)" rows={2} value={draft.description} onChange={(e) => set('description', e.target.value)} error={errorOf('description')} />
      </Section>

      <Section title="Model and instructions" description="The model that answers, and the system prompt it follows on every run.">
        <ModelField value={draft.model} onChange={(model) => set('model', model)} error={errorOf('model')} />
        <TextAreaField
          id="agent-instructions"
          label="Instructions (optional)"
          rows={6}
          placeholder="You are a friendly support agent for Acme. Look orders up with the lookup_order tool before answering."
          value={draft.instructions}
          onChange={(e) => set('instructions', e.target.value)}
          error={errorOf('instructions')}
        />
      </Section>

      <Section title="Limits" description="A run stops with an error when it needs more model calls than the step limit, or takes longer than the timeout.">
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField id="agent-temperature" label="Temperature" inputMode="decimal" placeholder="Default" hint="0–2, empty for the model's default" value={draft.temperature} onChange={(e) => set('temperature', e.target.value)} error={errorOf('temperature')} />
          <TextField id="agent-maxSteps" label="Max steps" type="number" min={1} max={20} hint="1–20 model calls" value={draft.maxSteps} onChange={(e) => set('maxSteps', e.target.value)} error={errorOf('maxSteps')} />
          <TextField id="agent-timeoutSeconds" label="Timeout (seconds)" type="number" min={1} max={900} hint="1–900" value={draft.timeoutSeconds} onChange={(e) => set('timeoutSeconds', e.target.value)} error={errorOf('timeoutSeconds')} />
        </div>
      </Section>

      <Section title="Tools" description="HTTP endpoints the model may call. Each request carries the model's arguments as JSON and a signature you can verify.">
        <ToolsEditor tools={draft.tools} onChange={(tools) => setDraft((d) => ({ ...d, tools }))} errorOf={errorOf} onEdited={edited} />
      </Section>

      <div className="flex flex-col-reverse gap-3 border-t border-slate-200 pt-6 sm:flex-row sm:justify-end">
        <ButtonLink href={cancelHref} variant="secondary">
          Cancel
        </ButtonLink>
        <Button type="submit" disabled={pending} data-testid="agent-submit">
          {pending && <Spinner />}
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
