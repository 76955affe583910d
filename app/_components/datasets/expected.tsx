'use client';

import { useId, useState } from 'react';
import { clip, compactJson, expectedKind, prettyJson, type ExpectedDraft } from '@/app/_lib/datasets';
import { formatCount } from '@/app/_lib/format';
import { SWITCH, TextAreaField } from '../ui';

// An item's input and expected answer as a row shows them — a text as text, an object or a list
// as one line of JSON in a code block — cut after a few lines with "Show all" (JSON then indented),
// and the expected field of the item dialogs: a text, or JSON with its switch on.

/** The most an item's input or a text answer may hold (dataset-schemas.ts). */
export const MAX_ITEM_TEXT = 100_000;

const TEXT = 'whitespace-pre-wrap wrap-anywhere text-slate-800';
const CODE = 'rounded-md bg-slate-50 px-2 py-1.5 font-mono text-xs leading-relaxed whitespace-pre-wrap wrap-anywhere text-slate-800 ring-1 ring-slate-200 ring-inset';

/** A value cut to its first lines, with a toggle for the rest (`full` may differ from the preview: JSON indented). */
function Clipped({ preview, full, code, testId }: { preview: string; full: string; code: boolean; testId: string }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  const { shown, cut } = clip(preview);
  const text = open ? full : cut ? `${shown}…` : preview;
  return (
    <div className="min-w-0">
      {code ? (
        <pre id={panel} className={CODE} data-testid={testId}>
          {text}
        </pre>
      ) : (
        <p id={panel} className={TEXT} data-testid={testId}>
          {text}
        </p>
      )}
      {cut && (
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panel}
          onClick={() => setOpen((o) => !o)}
          className="relative z-10 mt-1 rounded text-xs font-medium text-indigo-600 hover:text-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-600"
          data-testid={`${testId}-toggle`}
        >
          {open ? 'Show less' : `Show all (${formatCount(preview.length)} characters)`}
        </button>
      )}
    </div>
  );
}

/** An item's input: its text. */
export function InputText({ text, testId }: { text: string; testId: string }) {
  return <Clipped preview={text} full={text} code={false} testId={testId} />;
}

/** An item's expected answer: none, its text, or its JSON. */
export function ExpectedValue({ value, testId }: { value: unknown; testId: string }) {
  const kind = expectedKind(value);
  if (kind === 'none') {
    return (
      <p className="text-slate-500" data-testid={testId} data-kind="none">
        None
      </p>
    );
  }
  if (kind === 'text') return <Clipped preview={value as string} full={value as string} code={false} testId={testId} />;
  return (
    <div data-kind="json">
      <Clipped preview={compactJson(value)} full={prettyJson(value)} code testId={testId} />
    </div>
  );
}

/**
 * The expected answer of an item being written: a textarea, and the "JSON" switch that reads it as
 * an object or a list (its error, when it does not parse, is the caller's `error`). Test ids:
 * `testId` on the textarea, `<testId>-json` on the switch.
 */
export function ExpectedField({
  id,
  draft,
  onChange,
  error,
  label = 'Expected answer (optional)',
  hint,
  testId,
}: {
  id: string;
  draft: ExpectedDraft;
  onChange: (draft: ExpectedDraft) => void;
  error: string | null;
  label?: string;
  hint?: string;
  testId: string;
}) {
  return (
    <div className="relative">
      <TextAreaField
        id={id}
        label={label}
        rows={draft.json ? 6 : 3}
        value={draft.text}
        onChange={(e) => onChange({ ...draft, text: e.target.value })}
        maxLength={MAX_ITEM_TEXT}
        spellCheck={!draft.json}
        autoCapitalize={draft.json ? 'off' : undefined}
        autoCorrect={draft.json ? 'off' : undefined}
        placeholder={draft.json ? '{"orderId": "1042", "status": "shipped"}' : 'e.g. Order 1042 shipped on Nov 20.'}
        className={draft.json ? 'font-mono text-xs' : undefined}
        hint={
          hint ??
          (draft.json
            ? 'A JSON object or list, compared with the structured output of an agent that has an output schema.'
            : 'A text, compared with the answer (both trimmed). Leave it empty for none: scorers that need one then give no score.')
        }
        error={error}
        data-testid={testId}
      />
      <label htmlFor={`${id}-json`} className="absolute top-0 right-0 flex cursor-pointer items-center gap-2 text-sm font-medium text-slate-700">
        <input
          id={`${id}-json`}
          type="checkbox"
          role="switch"
          checked={draft.json}
          onChange={(e) => onChange({ ...draft, json: e.target.checked })}
          className={SWITCH}
          data-testid={`${testId}-json`}
        />
        JSON
      </label>
    </div>
  );
}
