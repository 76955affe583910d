'use client';

import Link from 'next/link';
import { Fragment } from 'react';
import { clip } from '@/app/_lib/datasets';
import { outputText } from '@/app/_lib/experiments';
import type { ExperimentResult } from '@/app/_lib/types';
import { ExpectedValue, InputText } from '../datasets/expected';
import { useOpenSet } from '../disclosure';
import { IdText } from '../id-text';
import { cx } from '../ui';
import { ChangeBadge, ScoreValue } from './score-parts';

// An experiment's results, items × scorers: each item's input (its expected answer below), its
// answer (the first trial's; how many more), each scorer's mean over the trials with pass/fail
// (the reason on hover), its change against the baseline, and its runs. A row opens in place
// (▸, or a tap on a score) on the whole input, expected answer, every trial's answer with its
// execution, and each scorer's reason. Below md each item is a card (its cells labelled); wider,
// a table that scrolls in its own box when its scorers do not fit.

const TH = 'px-3 py-2.5 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500';
const TD = 'px-3 py-3 align-top max-md:p-0';
/** A cell's label on a card (the table has its header). */
const CARD_LABEL = 'mb-0.5 block text-xs text-slate-500 md:hidden';
/** A row that is a card below md: two columns, its ▸ in the top right corner. */
export const RESULT_ROW = 'relative max-md:grid max-md:grid-cols-2 max-md:gap-x-3 max-md:gap-y-3 max-md:p-4 md:hover:bg-slate-50/60';
/** The ▸ cell: the first column of the table, a card's top right corner. */
export const TOGGLE_CELL = 'px-3 py-3 pr-0 align-top max-md:absolute max-md:top-3 max-md:right-3 max-md:p-0';

/** The first cell of a result row: the button that opens its details (the results and the compare tables). */
export function ToggleCell({ open, controls, label, onToggle, testId }: { open: boolean; controls: string; label: string; onToggle: () => void; testId: string }) {
  return (
    <td className={TOGGLE_CELL}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={open ? controls : undefined}
        aria-label={label}
        onClick={onToggle}
        className="rounded px-1 text-slate-400 hover:bg-slate-100 max-md:px-2 max-md:py-1 hover:text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-600"
        data-testid={testId}
      >
        <span aria-hidden className={`inline-block transition-transform ${open ? 'rotate-90' : ''}`}>
          ▸
        </span>
      </button>
    </td>
  );
}

const short = (text: string, chars = 140) => {
  const { shown, cut } = clip(text, { chars, lines: 3 });
  return cut ? `${shown}…` : shown;
};

function Details({ id, row, scorers, colSpan }: { id: string; row: ExperimentResult; scorers: string[]; colSpan: number }) {
  return (
    <tr id={id} className="bg-slate-50/70 max-md:block" data-testid="result-details">
      <td colSpan={colSpan} className="px-4 py-4 max-md:block">
        <div className="grid gap-4 text-sm lg:grid-cols-2">
          <div className="min-w-0 space-y-3">
            <div>
              <p className="mb-1 text-xs font-medium text-slate-500">Input</p>
              <InputText text={row.input} testId="result-details-input" />
            </div>
            <div>
              <p className="mb-1 text-xs font-medium text-slate-500">Expected</p>
              <ExpectedValue value={row.expected} testId="result-details-expected" />
            </div>
          </div>
          <div className="min-w-0 space-y-3">
            <div>
              <p className="mb-1 text-xs font-medium text-slate-500">Scores</p>
              <ul className="space-y-1.5">
                {scorers.map((n) => {
                  const s = row.scores[n];
                  return (
                    <li key={n} className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5" data-testid="result-reason" data-scorer={n}>
                      <code className="font-mono text-xs font-semibold text-slate-900">{n}</code>
                      <ScoreValue score={s?.mean ?? null} pass={s?.pass ?? null} />
                      <span className="min-w-0 basis-full text-xs wrap-anywhere text-slate-600 sm:basis-auto">{s?.reason ?? 'not scored'}</span>
                    </li>
                  );
                })}
              </ul>
            </div>
            <div>
              <p className="mb-1 text-xs font-medium text-slate-500">{row.outputs.length > 1 ? `Answers (${row.outputs.length} trials)` : 'Answer'}</p>
              {row.executionIds.length === 0 ? (
                <p className="text-slate-400">Not run</p>
              ) : (
              <ol className="space-y-2">
                {row.outputs.map((o, i) => (
                  <li key={i} className="min-w-0 space-y-0.5">
                    {row.executionIds[i] && <IdText value={row.executionIds[i]} href={`/dashboard/executions/${row.executionIds[i]}`} testId="result-details-execution" />}
                    <p className="whitespace-pre-wrap wrap-anywhere text-slate-800">{outputText(o) ?? <span className="text-slate-400">No answer</span>}</p>
                  </li>
                ))}
              </ol>
              )}
            </div>
          </div>
        </div>
      </td>
    </tr>
  );
}

export function ResultsTable({ rows, scorers, hasBaseline }: { rows: ExperimentResult[]; scorers: string[]; hasBaseline: boolean }) {
  const { open, toggle } = useOpenSet();
  const colSpan = 4 + scorers.length + (hasBaseline ? 1 : 0);
  return (
    <div className="md:overflow-x-auto" data-testid="results-scroll">
      <table className="w-full text-sm max-md:block md:min-w-[44rem] md:divide-y md:divide-slate-200" data-testid="results-table">
        <thead className="bg-slate-50 max-md:hidden">
          <tr>
            <th className={`${TH} w-8`}>
              <span className="sr-only">Details</span>
            </th>
            <th className={`${TH} uppercase`}>Item</th>
            <th className={`${TH} uppercase`}>Answer</th>
            {scorers.map((n) => (
              <th key={n} className={`${TH} font-mono`} data-testid="results-scorer-header">
                {n}
              </th>
            ))}
            {hasBaseline && <th className={`${TH} uppercase`}>Change</th>}
            <th className={`${TH} uppercase`}>Runs</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white max-md:block">
          {rows.map((row, index) => {
            const isOpen = open.has(row.itemId);
            const panel = `result-${row.itemId}`;
            const first = outputText(row.outputs[0] ?? null);
            return (
              <Fragment key={row.itemId}>
                <tr className={cx(RESULT_ROW, isOpen && 'bg-slate-50/60')} data-testid="result-row" data-item-id={row.itemId} data-change={row.change ?? ''}>
                  <ToggleCell open={isOpen} controls={panel} label={`Details of item ${index + 1}`} onToggle={() => toggle(row.itemId)} testId="result-toggle" />
                  <td className={`${TD} max-md:col-span-2 max-md:pr-8 md:max-w-72 md:min-w-48`}>
                    <p className="wrap-anywhere text-slate-900" data-testid="result-input">
                      {short(row.input)}
                    </p>
                    {row.expected !== null && (
                      <p className="mt-1 text-xs wrap-anywhere text-slate-500" data-testid="result-expected">
                        Expected: {short(typeof row.expected === 'string' ? row.expected : JSON.stringify(row.expected), 100)}
                      </p>
                    )}
                  </td>
                  <td className={`${TD} text-slate-700 max-md:col-span-2 md:max-w-72 md:min-w-40`} data-testid="result-output">
                    <span className={CARD_LABEL}>Answer</span>
                    {first === null ? <span className="text-slate-400">{row.executionIds.length === 0 ? 'Not run' : 'No answer'}</span> : <span className="wrap-anywhere">{short(first)}</span>}
                    {row.outputs.length > 1 && <span className="mt-0.5 block text-xs text-slate-500">+{row.outputs.length - 1} more {row.outputs.length === 2 ? 'trial' : 'trials'}</span>}
                  </td>
                  {scorers.map((n) => {
                    const s = row.scores[n];
                    return (
                      <td key={n} className={TD} data-testid="result-score" data-scorer={n}>
                        <span className={`${CARD_LABEL} font-mono break-all`}>{n}</span>
                        <button type="button" onClick={() => toggle(row.itemId)} className="rounded text-left focus-visible:outline-2 focus-visible:outline-indigo-600" aria-label={`${n}: ${s?.reason ?? 'not scored'}`}>
                          <ScoreValue score={s?.mean ?? null} pass={s?.pass ?? null} reason={s?.reason} />
                        </button>
                      </td>
                    );
                  })}
                  {hasBaseline && (
                    <td className={TD}>
                      <span className={CARD_LABEL}>Change</span>
                      <ChangeBadge change={row.change} />
                    </td>
                  )}
                  <td className={`${TD} whitespace-nowrap`}>
                    <span className={CARD_LABEL}>Runs</span>
                    {row.executionIds.length === 0 ? (
                      <span className="text-xs text-slate-400">—</span>
                    ) : (
                      <span className="flex flex-wrap gap-x-3 gap-y-1">
                        {row.executionIds.map((id, i) => (
                          <Link key={id} href={`/dashboard/executions/${id}`} className="py-0.5 text-xs font-medium text-indigo-600 hover:text-indigo-500" title={id} data-testid="result-execution-link">
                            {row.executionIds.length === 1 ? 'Execution' : `Run ${i + 1}`}
                          </Link>
                        ))}
                      </span>
                    )}
                  </td>
                </tr>
                {isOpen && <Details id={panel} row={row} scorers={scorers} colSpan={colSpan} />}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
