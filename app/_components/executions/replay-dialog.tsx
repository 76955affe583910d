'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { revealProblem } from '@/app/_lib/reveal';
import type { Execution } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, cx, TextAreaField, TextField } from '../ui';

// "Replay from here" (docs/traces.md, "Replay"): a new execution of a final one's agent, its steps
// before `fromStep` taken as recorded (no model call, no tool call, no cost) and the rest run live,
// with the input, instructions or model changed if the user wants. Tools are answered from the
// original's results unless the user asks, with a warning, for them to be called for real.
// Steps are numbered from 1 on the page (the trace's "Step 2" is `fromStep: 1`).

/** The most the API takes (executions.replay's input and instructions). */
const MAX_INPUT = 100_000;
const MAX_INSTRUCTIONS = 32_000;
const MAX_MODEL = 200;

type Tools = 'recorded' | 'live';

const TOOL_CHOICES: { value: Tools; label: string; detail: string; checked: string }[] = [
  {
    value: 'recorded',
    label: 'Recorded (no tool is called)',
    detail: 'A call this execution made, with the same arguments, gets its recorded result; any other call is answered “not recorded”.',
    checked: 'has-checked:bg-indigo-50 has-checked:ring-indigo-500',
  },
  { value: 'live', label: 'Live (tools are called for real)', detail: 'HTTP and MCP tools are called again; approval policies apply.', checked: 'has-checked:bg-amber-50 has-checked:ring-amber-500' },
];

/** The fields a failed call's `param` can point at; anything else is shown above the form. */
type Field = 'input' | 'instructions' | 'model';
const FIELDS: readonly string[] = ['input', 'instructions', 'model'] satisfies Field[];

export function ReplayDialog({ execution: e, fromStep, onClose }: { execution: Execution; fromStep: number; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const providers = useQuery({ ...trpc.models.providers.queryOptions(), staleTime: 5 * 60_000 });
  const [input, setInput] = useState(e.input);
  const [instructions, setInstructions] = useState('');
  const [model, setModel] = useState('');
  const [tools, setTools] = useState<Tools>('recorded');
  const [inputError, setInputError] = useState<string | null>(null);
  const modelsId = useId();
  const warning = useRef<HTMLDivElement>(null);
  // Live tools: the warning comes into view (the dialog's body may scroll).
  useEffect(() => {
    if (tools === 'live') warning.current?.scrollIntoView({ block: 'nearest' });
  }, [tools]);
  const replay = useMutation(
    trpc.executions.replay.mutationOptions({
      onSuccess: (created) => {
        void queryClient.invalidateQueries({ queryKey: trpc.executions.list.pathKey() });
        router.push(`/dashboard/executions/${created.id}`);
      },
      // The field the error is about, or the message above the form, in view (the body may scroll).
      onError: (err) => {
        const field = apiErrorOf(err)?.param;
        revealProblem(field && FIELDS.includes(field) ? `replay-${field}` : 'replay-error');
      },
    }),
  );
  // Still disabled once it succeeded: the page is on its way to the replay.
  const pending = replay.isPending || replay.isSuccess;
  const param = apiErrorOf(replay.error)?.param ?? null;
  const fieldOf = (name: Field) => (replay.error && param === name ? errorMessage(replay.error) : null);
  const formError = replay.error && !(param && FIELDS.includes(param)) ? errorMessage(replay.error) : null;
  const examples = providers.data?.providers.filter((p) => p.configured).flatMap((p) => p.examples) ?? [];

  const step = fromStep + 1;

  return (
    <Modal
      title={`Replay from step ${step}`}
      description={
        fromStep === 0
          ? 'A new execution of the same agent runs every step live, from the first model call. This one is not changed.'
          : `${fromStep === 1 ? 'Step 1 is' : `Steps 1–${fromStep} are`} taken from this execution as recorded (no model or tool call, no cost); from step ${step} on, a new execution runs live. This one is not changed.`
      }
      onClose={onClose}
      dismissible={!pending}
      size="lg"
      testId="replay-dialog"
      onSubmit={(event) => {
        event.preventDefault();
        if (pending) return;
        if (!input.trim()) {
          setInputError('Enter the message the agent is sent.');
          revealProblem('replay-input');
          return;
        }
        setInputError(null);
        replay.mutate({
          id: e.id,
          fromStep,
          tools,
          ...(input !== e.input ? { input } : {}),
          // Blank: the agent's own instructions (an explicit "" would mean none at all).
          ...(instructions.trim() ? { instructions } : {}),
          ...(model.trim() ? { model: model.trim() } : {}),
        });
      }}
      footer={<ModalActions label={tools === 'live' ? 'Replay with live tools' : 'Replay'} pending={pending} onCancel={onClose} testId="replay-submit" />}
    >
      <div className="space-y-5">
        {formError && (
          <Alert id="replay-error" tabIndex={-1} data-testid="replay-error">
            {formError}
          </Alert>
        )}
        <div className="grid gap-5 sm:grid-cols-2">
          <TextAreaField
            id="replay-input"
            label="Input"
            rows={3}
            value={input}
            onChange={(event) => setInput(event.target.value)}
            maxLength={MAX_INPUT}
            required
            hint="The user message: this execution’s, unless changed."
            error={inputError ?? fieldOf('input')}
            data-testid="replay-input"
          />
          <TextAreaField
            id="replay-instructions"
            label="Instructions (optional)"
            rows={3}
            value={instructions}
            onChange={(event) => setInstructions(event.target.value)}
            maxLength={MAX_INSTRUCTIONS}
            placeholder="The agent’s own instructions"
            hint="Empty: the agent’s instructions, as they are now."
            error={fieldOf('instructions')}
            data-testid="replay-instructions"
          />
        </div>
        <div>
          <TextField
            id="replay-model"
            label="Model (optional)"
            value={model}
            onChange={(event) => setModel(event.target.value)}
            maxLength={MAX_MODEL}
            placeholder={e.model}
            list={modelsId}
            autoCapitalize="off"
            autoCorrect="off"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            hint={
              <>
                As <code className="font-mono">provider/model</code>. Leave empty to use <code className="font-mono break-words">{e.model}</code>, this execution’s.
              </>
            }
            error={fieldOf('model')}
            data-testid="replay-model"
          />
          <datalist id={modelsId}>
            {examples.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Tools</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {TOOL_CHOICES.map((t) => (
              <label
                key={t.value}
                className={cx('flex cursor-pointer items-start gap-2.5 rounded-lg p-3 ring-1 ring-slate-200 hover:bg-slate-50', t.checked)}
              >
                <input
                  type="radio"
                  name="replay-tools"
                  value={t.value}
                  checked={tools === t.value}
                  onChange={() => setTools(t.value)}
                  className={cx('mt-0.5', t.value === 'live' ? 'accent-amber-600' : 'accent-indigo-600')}
                  data-testid={`replay-tools-${t.value}`}
                />
                <span className="min-w-0">
                  <span className="block text-sm font-medium text-slate-900">{t.label}</span>
                  <span className="block text-xs text-slate-500">{t.detail}</span>
                </span>
              </label>
            ))}
          </div>
          {tools === 'live' && (
            <div className="mt-3" ref={warning}>
              <Alert tone="amber" data-testid="replay-live-warning">
                <strong className="font-semibold">Tools will be called for real.</strong> Whatever they do (send a message, charge, refund, write data) happens
                again.
              </Alert>
            </div>
          )}
        </fieldset>
      </div>
    </Modal>
  );
}
