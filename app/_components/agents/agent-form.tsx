'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useState, type ReactNode } from 'react';
import { Controller, FormProvider, useForm, useWatch, type FieldErrors } from 'react-hook-form';
import { FORM_ERROR, firstWithError, messageOf, showServerError } from '@/app/_lib/forms';
import { revealProblem } from '@/app/_lib/reveal';
import { Alert, ButtonLink, Button, Card, Spinner, SWITCH, TextAreaField, TextField } from '../ui';
import { VERSION_NOTE_MAX } from '@/app/_lib/versions';
import { AGENT_LIMITS, agentFormSchema, agentMessage, behaviourKey, fieldId, type AgentDraft, type AgentInput } from './agent-draft';
import { ModelField } from './model-field';
import { ToolsEditor } from './tools-editor';

// The agent form (react-hook-form): checked with the server's own schema (agent-draft.ts) on
// submit and again as each field changes after that; what only the server can check lands on
// the field its `param` names, or at the top.

const TOP_FIELDS = ['name', 'description', 'model', 'instructions', 'temperature', 'maxSteps', 'timeoutSeconds', 'maxTotalTokens', 'approvalTimeoutSeconds'];
const TOOL_FIELDS = ['name', 'description', 'url', 'method', 'parameters', 'allowedTools', 'headers', 'approval', 'approvalTools'];
const L = AGENT_LIMITS;

/** Where a problem shows: the field its param names (`tools.0.parameters.type` → `tools.0.parameters`), or null for the form. */
function placeOf(param: string, toolCount: number): string | null {
  const [head, index, field] = param.split('.');
  if (head === 'tools') {
    if (index === undefined || !/^\d+$/.test(index) || Number(index) >= toolCount) return 'tools';
    return field && TOOL_FIELDS.includes(field) ? `tools.${index}.${field}` : `tools.${index}`;
  }
  return TOP_FIELDS.includes(head!) ? head! : null;
}

/** Every field that can hold an error, top to bottom (the first one with an error is brought into view). */
const fieldOrder = (toolCount: number) => [
  ...['name', 'description', 'model', 'instructions', 'temperature', 'maxSteps', 'timeoutSeconds', 'maxTotalTokens', 'approvalTimeoutSeconds', 'tools'],
  ...Array.from({ length: toolCount }, (_, i) => [`tools.${i}`, ...['name', 'method', 'url', 'description', 'parameters', 'allowedTools', 'headers', 'approval', 'approvalTools'].map((f) => `tools.${i}.${f}`)]).flat(),
];

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

/** An agent's versions as the edit form tells of them: its latest, and the version production runs. */
export interface VersionFacts {
  latest: number;
  production: number | undefined;
}

/** What saving does to the agent's versions (docs/versions.md): a new one when its behaviour changed, none for a name or description alone. */
function NextVersion({ facts, changed }: { facts: VersionFacts; changed: boolean }) {
  const next = facts.latest + 1;
  const pinned = facts.production !== undefined && facts.production !== facts.latest;
  return (
    <p className="text-sm text-slate-600" data-testid="agent-next-version" data-changed={changed}>
      {changed ? (
        <>
          <span className="font-semibold text-slate-900">Saving makes version {next}.</span>{' '}
          {pinned
            ? `Production stays on v${facts.production}: move it to v${next} on the agent’s page to run it by default.`
            : 'Production runs it from then on, unless it is pinned to a version.'}
        </>
      ) : (
        <>
          This is version {facts.latest}. Changing the model, instructions, limits, tools or traces makes version {next}; the name and description alone make
          none.
        </>
      )}
    </p>
  );
}

export function AgentForm({
  initial,
  submitLabel,
  cancelHref,
  pending,
  versions,
  onSubmit,
}: {
  initial: AgentDraft;
  submitLabel: string;
  cancelHref: string;
  pending: boolean;
  /** Editing an agent: its versions, to say what saving makes, and a version note to send. */
  versions?: VersionFacts;
  /** Sends the body (and the version note, when editing); a rejection is shown on its field. */
  onSubmit: (input: AgentInput, versionNote: string | null) => Promise<unknown>;
}) {
  const form = useForm<AgentDraft, unknown, AgentInput>({
    defaultValues: initial,
    resolver: zodResolver(agentFormSchema, { error: agentMessage }),
    // The focus goes where revealProblem puts it (it also scrolls the field into view).
    shouldFocusError: false,
  });
  const { register, control, handleSubmit, setError, getValues, formState } = form;
  const { errors } = formState;
  const errorOf = (name: string) => messageOf(errors, name);
  const [versionNote, setVersionNote] = useState('');
  const values = useWatch({ control }) as AgentDraft;
  const behaviourChanged = versions !== undefined && behaviourKey(values) !== behaviourKey(initial);

  function reveal(found: FieldErrors<AgentDraft>) {
    const first = firstWithError(found, fieldOrder(getValues('tools').length));
    revealProblem(first ? fieldId(first) : null);
  }

  const submit = handleSubmit(async (input) => {
    try {
      await onSubmit(input, versionNote.trim() || null);
    } catch (err) {
      const field = showServerError(err, setError, (param) => placeOf(param, getValues('tools').length));
      // Bring the field (or the message at the top) into view.
      revealProblem(field ? fieldId(field) : 'agent-form-error');
    }
  }, reveal);

  const formError = errorOf(FORM_ERROR);
  return (
    <FormProvider {...form}>
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-8" data-testid="agent-form">
        {formError && (
          <Alert id="agent-form-error" tabIndex={-1} data-testid="agent-form-error">
            {formError}
          </Alert>
        )}
        <Section title="Agent" description="How you and your team recognise it in the dashboard and the API.">
          <TextField id="agent-name" label="Name" placeholder="e.g. Support assistant" {...register('name')} maxLength={L.name.max} required autoFocus error={errorOf('name')} />
          <TextAreaField id="agent-description" label="Description (optional)" rows={2} {...register('description')} maxLength={L.description.max} error={errorOf('description')} />
        </Section>

        <Section title="Model and instructions" description="The model that answers, and the system prompt it follows on every run.">
          <Controller control={control} name="model" render={({ field }) => <ModelField value={field.value} onChange={field.onChange} error={errorOf('model')} />} />
          <TextAreaField
            id="agent-instructions"
            label="Instructions (optional)"
            rows={6}
            placeholder="You are a friendly support agent for Acme. Look orders up with the lookup_order tool before answering."
            {...register('instructions')}
            maxLength={L.instructions.max}
            error={errorOf('instructions')}
          />
        </Section>

        <Section
          title="Limits"
          description="A run stops with an error when it needs more model calls than the step limit, or takes longer than the timeout. A tool call that needs approval and is still undecided after the approval timeout is denied as expired."
        >
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              id="agent-temperature"
              label="Temperature"
              inputMode="decimal"
              placeholder="Default"
              hint={`${L.temperature.min}–${L.temperature.max}, empty for the model's default`}
              {...register('temperature')}
              error={errorOf('temperature')}
            />
            {(
              [
                ['maxSteps', 'Max steps', ' model calls'],
                ['timeoutSeconds', 'Timeout (seconds)', ''],
                ['maxTotalTokens', 'Max tokens per run', ' tokens, empty for no limit'],
                ['approvalTimeoutSeconds', 'Approval timeout (seconds)', ' (default 86,400: a day)'],
              ] as const
            ).map(([field, label, unit]) => (
              <TextField
                key={field}
                id={`agent-${field}`}
                label={label}
                type="number"
                min={L[field].min}
                max={L[field].max}
                hint={`${L[field].min.toLocaleString('en-US')}–${L[field].max.toLocaleString('en-US')}${unit}`}
                {...register(field)}
                error={errorOf(field)}
              />
            ))}
          </div>
        </Section>

        <Section
          title="Tools"
          description="HTTP endpoints the model may call, each request carrying the model's arguments as JSON and a signature you can verify; and remote MCP servers, whose tools the model is offered."
        >
          <ToolsEditor errorOf={errorOf} />
        </Section>

        <Section
          title="Traces"
          description={
            <>
              Every run records a trace: each model call and tool call with its timing, tokens and cost, on the execution’s page and at{' '}
              <code className="font-mono text-xs">GET /v1/executions/{'{id}'}/trace</code>.
            </>
          }
        >
          <label htmlFor="agent-traceContent" className="flex cursor-pointer items-start gap-3">
            <input
              id="agent-traceContent"
              type="checkbox"
              role="switch"
              aria-describedby="agent-traceContent-hint"
              className={SWITCH}
              {...register('traceContent')}
              data-testid="agent-trace-content"
            />
            <span className="min-w-0">
              <span className="block text-sm font-medium text-slate-800">Record content in traces</span>
              <span id="agent-traceContent-hint" className="mt-0.5 block text-xs text-slate-500">
                The messages each model call was sent and answered, and each tool call’s arguments and result, on the run’s trace (each value up to 32 KB).
                Off by default: content may hold personal data. Applies to the runs that start after you save.
              </span>
            </span>
          </label>
        </Section>

        {versions && (
          <Section
            title="Version"
            description="Each save that changes the agent’s behaviour makes a new version, kept with who saved it, when, and this note: the agent’s page lists them, compares any two and moves production between them."
          >
            <NextVersion facts={versions} changed={behaviourChanged} />
            <TextAreaField
              id="agent-versionNote"
              label="Version note (optional)"
              rows={2}
              placeholder="e.g. Shorter answers"
              value={versionNote}
              onChange={(e) => setVersionNote(e.target.value)}
              maxLength={VERSION_NOTE_MAX}
              hint={
                behaviourChanged
                  ? `What the change is for, kept on version ${versions.latest + 1} (at most ${VERSION_NOTE_MAX} characters).`
                  : `Kept on the version a change of behaviour makes (at most ${VERSION_NOTE_MAX} characters); a save that makes none ignores it.`
              }
              data-testid="agent-version-note"
            />
          </Section>
        )}

        <div className="flex flex-col-reverse gap-3 border-t border-slate-200 pt-6 sm:flex-row sm:items-center sm:justify-end">
          {versions && (
            <p className="text-sm text-slate-500 sm:mr-auto" data-testid="agent-save-version">
              {behaviourChanged ? `Saving makes version ${versions.latest + 1}` : 'No change of behaviour: no new version'}
            </p>
          )}
          <ButtonLink href={cancelHref} variant="secondary">
            Cancel
          </ButtonLink>
          <Button type="submit" disabled={pending || formState.isSubmitting} data-testid="agent-submit">
            {(pending || formState.isSubmitting) && <Spinner />}
            {submitLabel}
          </Button>
        </div>
      </form>
    </FormProvider>
  );
}
