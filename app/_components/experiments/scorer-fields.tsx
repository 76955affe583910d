'use client';

import { MODE_WORDS, type ScorerDraft, type ScorerField, type TrajectoryMode } from '@/app/_lib/scorers';
import { SelectField, TextAreaField, TextField } from '../ui';

// One scorer's own fields in the builder, by its type: the text a `contains` looks for, a regex,
// a JSON Schema or the expected tool calls as JSON, the most tool calls, a judge's model, rubric
// and pass line. Ids: `<id>-<field>`; test ids alike.

/** JSON in a textarea; a single line (a pattern, a model) keeps the fields' size. */
const MONO = 'font-mono text-xs';
const MONO_LINE = 'font-mono';

export function ScorerFields({
  id,
  draft: d,
  onChange,
  error,
}: {
  id: string;
  draft: ScorerDraft;
  onChange: (patch: Partial<ScorerDraft>) => void;
  error: (field: ScorerField) => string | null;
}) {
  const text = (field: ScorerField & keyof ScorerDraft, label: string, props: { placeholder?: string; hint?: string; mono?: boolean; type?: string; step?: string; min?: number; max?: number } = {}) => (
    <TextField
      id={`${id}-${field}`}
      label={label}
      value={d[field] as string}
      onChange={(e) => onChange({ [field]: e.target.value })}
      placeholder={props.placeholder}
      hint={props.hint}
      type={props.type}
      step={props.step}
      min={props.min}
      max={props.max}
      className={props.mono ? MONO_LINE : undefined}
      spellCheck={props.mono ? false : undefined}
      error={error(field)}
      data-testid={`${id}-${field}`}
    />
  );
  const json = (field: 'schema' | 'expected', label: string, hint: string) => (
    <TextAreaField
      id={`${id}-${field}`}
      label={label}
      rows={5}
      value={d[field]}
      onChange={(e) => onChange({ [field]: e.target.value })}
      className={MONO}
      spellCheck={false}
      autoCapitalize="off"
      autoCorrect="off"
      hint={hint}
      error={error(field)}
      data-testid={`${id}-${field}`}
    />
  );

  switch (d.type) {
    case 'exact_match':
      return null;
    case 'contains':
      return (
        <div className="space-y-2">
          {text('value', 'Text', { placeholder: 'e.g. refund' })}
          <label className="flex cursor-pointer items-center gap-2 text-sm text-slate-700">
            <input type="checkbox" checked={d.ignoreCase} onChange={(e) => onChange({ ignoreCase: e.target.checked })} className="accent-indigo-600" data-testid={`${id}-ignoreCase`} />
            Ignore case
          </label>
        </div>
      );
    case 'regex':
      return text('pattern', 'Pattern', { placeholder: '^Order #\\d+', mono: true, hint: 'Searched anywhere in the answer: anchor it with ^…$ to match the whole.' });
    case 'json_schema':
      return json('schema', 'JSON Schema', 'Draft 2020-12 (or draft-07 when $schema says so), at most 16 KB.');
    case 'tool_trajectory':
      return (
        <div className="space-y-3">
          {json('expected', 'Expected calls (JSON)', 'A list: [{"tool": "lookup_order", "arguments": {"orderId": "1042"}}]. Arguments are optional; given, they must be equal.')}
          <SelectField id={`${id}-mode`} label="Mode" value={d.mode} onChange={(e) => onChange({ mode: e.target.value as TrajectoryMode })} data-testid={`${id}-mode`}>
            {(Object.keys(MODE_WORDS) as TrajectoryMode[]).map((m) => (
              <option key={m} value={m}>
                {MODE_WORDS[m]}
              </option>
            ))}
          </SelectField>
        </div>
      );
    case 'max_tool_calls':
      return text('max', 'Most tool calls', { type: 'number', min: 0, max: 1000, step: '1' });
    case 'llm_judge':
      return (
        <div className="space-y-3">
          <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_8rem]">
            {text('model', 'Judge model', { placeholder: 'openai/gpt-4o-mini', mono: true })}
            {text('passThreshold', 'Passes from', { type: 'number', min: 0, max: 1, step: '0.05' })}
          </div>
          <TextAreaField
            id={`${id}-rubric`}
            label="Rubric"
            rows={3}
            value={d.rubric}
            onChange={(e) => onChange({ rubric: e.target.value })}
            maxLength={4000}
            placeholder="e.g. The answer states the refund amount and is polite."
            error={error('rubric')}
            data-testid={`${id}-rubric`}
          />
        </div>
      );
  }
}
