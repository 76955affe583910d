'use client';

import { useState } from 'react';
import { clashingNames, draftName, newScorerDraft, SCORER_TYPES, SCORER_WORDS, toScorer, type ScorerDraft, type ScorerField, type ScorerType } from '@/app/_lib/scorers';
import type { ScorerInput } from '@/app/_lib/types';
import { Button, cx } from '../ui';
import { ScorerFields } from './scorer-fields';

// The scorers of an experiment or a scoring rule (1–10): each its type, an optional name (its
// type by default; names are unique ignoring case) and its own fields; removed with ×; another
// added by type. The problems shown are the caller's (after a submit), by draft key and field.

export const MAX_SCORERS = 10;

export type ScorerProblems = Record<string, { field: ScorerField; message: string }>;

const INPUT = 'block w-full rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-slate-300 ring-inset outline-none focus:ring-2 focus:ring-indigo-600 focus:ring-inset';

export function ScorerBuilder({
  id,
  drafts,
  onChange,
  problems,
}: {
  id: string;
  drafts: ScorerDraft[];
  onChange: (drafts: ScorerDraft[]) => void;
  problems: ScorerProblems;
}) {
  const [adding, setAdding] = useState<ScorerType>('contains');
  const clashes = clashingNames(drafts);
  const update = (key: string, patch: Partial<ScorerDraft>) => onChange(drafts.map((d) => (d.key === key ? { ...d, ...patch } : d)));

  return (
    <fieldset className="space-y-3" id={id} data-testid="scorer-builder">
      <legend className="text-sm font-medium text-slate-800">Scorers</legend>
      <p className="-mt-1 text-xs text-slate-500">Each answer is scored by every one of them, 0–1, pass or fail. Up to {MAX_SCORERS}.</p>
      <ol className="space-y-3">
        {drafts.map((d, i) => {
          const fid = `${id}-${i}`;
          const problem = problems[d.key];
          const error = (field: ScorerField) => (problem?.field === field ? problem.message : null);
          const nameError = error('name') ?? (clashes.has(d.key) ? `Another scorer is named “${draftName(d)}”: give one of them a name of its own.` : null);
          return (
            <li key={d.key} className="space-y-3 rounded-lg bg-slate-50/70 p-3 ring-1 ring-slate-200" data-testid="scorer-draft" data-type={d.type}>
              <div className="flex items-start justify-between gap-2">
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-slate-900">{SCORER_WORDS[d.type].label}</p>
                  <p className="text-xs text-slate-500">{SCORER_WORDS[d.type].hint}</p>
                </div>
                {drafts.length > 1 && (
                  <button
                    type="button"
                    onClick={() => onChange(drafts.filter((x) => x.key !== d.key))}
                    className="shrink-0 rounded px-1.5 text-lg leading-6 text-slate-400 hover:bg-slate-200 hover:text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-600"
                    aria-label={`Remove the scorer ${draftName(d)}`}
                    data-testid="scorer-remove"
                  >
                    ×
                  </button>
                )}
              </div>
              <div className="space-y-1.5">
                <label htmlFor={`${fid}-name`} className="block text-sm font-medium text-slate-800">
                  Name <span className="font-normal text-slate-500">(optional)</span>
                </label>
                <input
                  id={`${fid}-name`}
                  value={d.name}
                  onChange={(e) => update(d.key, { name: e.target.value })}
                  placeholder={d.type}
                  maxLength={64}
                  spellCheck={false}
                  aria-invalid={nameError ? true : undefined}
                  aria-describedby={nameError ? `${fid}-name-error` : undefined}
                  className={cx(INPUT, 'font-mono text-xs aria-invalid:ring-red-500')}
                  data-testid={`${id}-${i}-name`}
                />
                {nameError && (
                  <p id={`${fid}-name-error`} className="text-xs text-red-600">
                    {nameError}
                  </p>
                )}
              </div>
              <ScorerFields id={fid} draft={d} onChange={(patch) => update(d.key, patch)} error={error} />
            </li>
          );
        })}
      </ol>
      {drafts.length < MAX_SCORERS && (
        <div className="flex flex-wrap items-center gap-2">
          <label htmlFor={`${id}-add-type`} className="sr-only">
            Type of scorer to add
          </label>
          <select id={`${id}-add-type`} value={adding} onChange={(e) => setAdding(e.target.value as ScorerType)} className={cx(INPUT, 'w-auto min-w-0 flex-1 pr-8 sm:flex-none')} data-testid={`${id}-add-type`}>
            {SCORER_TYPES.map((t) => (
              <option key={t} value={t}>
                {SCORER_WORDS[t].label}
              </option>
            ))}
          </select>
          <Button variant="secondary" onClick={() => onChange([...drafts, newScorerDraft(adding)])} data-testid={`${id}-add`}>
            <span aria-hidden>+</span> Add scorer
          </Button>
        </div>
      )}
    </fieldset>
  );
}

/** The drafts as scorers, or the problems (by draft key) and the first bad field's id. */
export function checkDrafts(id: string, drafts: ScorerDraft[]): { problems: ScorerProblems; scorers: ScorerInput[]; first: string | null } {
  const problems: ScorerProblems = {};
  const scorers: ScorerInput[] = [];
  let first: string | null = null;
  const clashes = clashingNames(drafts);
  for (const [i, d] of drafts.entries()) {
    const check = toScorer(d);
    if (!check.ok) {
      problems[d.key] = { field: check.field, message: check.message };
      first ??= `${id}-${i}-${check.field}`;
    } else scorers.push(check.scorer);
    if (clashes.has(d.key)) first ??= `${id}-${i}-name`;
  }
  return { problems, scorers, first };
}
