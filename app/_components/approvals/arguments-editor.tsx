'use client';

import { useId, useState, type FormEvent } from 'react';
import { prettyJson } from '../executions/json-block';
import { Button, Spinner, TextAreaField } from '../ui';

// Approving a call with other arguments than the model's: the JSON as text, checked here to be
// an object; whether it matches the tool's parameters only the server knows, and its answer
// shows under the field.

/** The text as a JSON object, or why it is not one. */
export function parseArguments(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'This is not valid JSON.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'The arguments must be a JSON object: {"name": value, …}.' };
  return { value: value as Record<string, unknown> };
}

export function ArgumentsEditor({
  initial,
  pending,
  serverError,
  onApprove,
  onCancel,
  onEdit,
}: {
  initial: unknown;
  pending: boolean;
  /** The server's refusal of the edited arguments, shown on the field. */
  serverError: string | null;
  onApprove: (args: Record<string, unknown>) => void;
  onCancel: () => void;
  /** The text changed: a refusal of the text before no longer applies. */
  onEdit: () => void;
}) {
  const id = useId();
  const [text, setText] = useState(() => prettyJson(initial ?? {}));
  const [error, setError] = useState<string | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseArguments(text);
    if ('error' in parsed) return setError(parsed.error);
    setError(null);
    onApprove(parsed.value);
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-3" data-testid="arguments-editor">
      <TextAreaField
        id={`${id}-arguments`}
        label="Arguments (JSON)"
        rows={Math.min(14, Math.max(4, text.split('\n').length + 1))}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setError(null);
          if (serverError) onEdit();
        }}
        className="font-mono text-xs leading-relaxed"
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        autoFocus
        hint="The call runs with these instead of the model's, and the model is told them. They must match the tool's parameters."
        error={error ?? serverError}
        data-testid="arguments-input"
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending} data-testid="approve-edited">
          {pending && <Spinner />}
          Approve with these arguments
        </Button>
        <Button variant="ghost" onClick={onCancel} disabled={pending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
