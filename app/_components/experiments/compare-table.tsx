'use client';

import Link from 'next/link';
import { Fragment } from 'react';
import { clip } from '@/app/_lib/datasets';
import { outputText, type JoinedItem } from '@/app/_lib/experiments';
import type { ExperimentResult } from '@/app/_lib/types';
import { ExpectedValue, InputText } from '../datasets/expected';
import { useOpenSet } from '../disclosure';
import { cx } from '../ui';
import { RESULT_ROW, ToggleCell } from './results-table';
import { ChangeBadge, DiffValue, ScoreValue } from './score-parts';

// Two experiments' items side by side: each item's input, then by shared scorer a's score → b's
// with the difference, and the item's change (b's mean over the shared scorers against a's). A
// row opens in place on the whole input, the expected answer, and both answers with their
// executions and each scorer's reasons. Below md each item is a card; wider, a table that
// scrolls in its own box when its scorers do not fit.

const TH = 'px-3 py-2.5 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500';
const TD = 'px-3 py-3 align-top max-md:p-0';
const CARD_LABEL = 'mb-0.5 block text-xs text-slate-500 md:hidden';

const short = (text: string) => {
  const { shown, cut } = clip(text, { chars: 120, lines: 3 });
  return cut ? `${shown}…` : shown;
};

function Side({ label, result, scorers }: { label: string; result: ExperimentResult | null; scorers: string[] }) {
  return (
    <div className="min-w-0 space-y-2" data-testid={`compare-details-${label.toLowerCase()}`}>
      <p className="text-xs font-semibold text-slate-700">{label}</p>
      {!result ? (
        <p className="text-sm text-slate-400">Not in this experiment</p>
      ) : (
        <>
          {result.outputs.map((o, i) => (
            <div key={i} className="min-w-0 text-sm">
              {result.executionIds[i] && (
                <Link href={`/dashboard/executions/${result.executionIds[i]}`} className="text-xs font-medium text-indigo-600 hover:text-indigo-500" data-testid="compare-execution-link">
                  Execution{result.outputs.length > 1 ? ` #${i + 1}` : ''} →
                </Link>
              )}
              <p className="whitespace-pre-wrap wrap-anywhere text-slate-800">{outputText(o) ?? <span className="text-slate-400">No answer</span>}</p>
            </div>
          ))}
          <ul className="space-y-1">
            {scorers.map((n) => (
              <li key={n} className="text-xs wrap-anywhere text-slate-600">
                <code className="font-mono font-semibold text-slate-800">{n}</code>: {result.scores[n]?.reason ?? 'not scored'}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

export function CompareTable({ items, scorers }: { items: JoinedItem[]; scorers: string[] }) {
  const { open, toggle } = useOpenSet();
  const colSpan = 3 + scorers.length;
  return (
    <div className="md:overflow-x-auto" data-testid="compare-scroll">
      <table className="w-full text-sm max-md:block md:min-w-[40rem] md:divide-y md:divide-slate-200" data-testid="compare-table">
        <thead className="bg-slate-50 max-md:hidden">
          <tr>
            <th className={`${TH} w-8`}>
              <span className="sr-only">Details</span>
            </th>
            <th className={`${TH} uppercase`}>Item</th>
            {scorers.map((n) => (
              <th key={n} className={`${TH} font-mono`}>
                {n} <span className="font-sans text-slate-400">a → b</span>
              </th>
            ))}
            <th className={`${TH} uppercase`}>Change</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white max-md:block">
          {items.map((item, index) => {
            const isOpen = open.has(item.itemId);
            const panel = `compare-${item.itemId}`;
            return (
              <Fragment key={item.itemId}>
                <tr className={cx(RESULT_ROW, isOpen && 'bg-slate-50/60')} data-testid="compare-row" data-item-id={item.itemId} data-change={item.change ?? ''}>
                  <ToggleCell open={isOpen} controls={panel} label={`Details of item ${index + 1}`} onToggle={() => toggle(item.itemId)} testId="compare-toggle" />
                  <td className={`${TD} wrap-anywhere text-slate-900 max-md:col-span-2 max-md:pr-8 md:max-w-80 md:min-w-48`} data-testid="compare-input">
                    {short(item.input)}
                  </td>
                  {scorers.map((n) => {
                    const a = item.a?.scores[n];
                    const b = item.b?.scores[n];
                    return (
                      <td key={n} className={`${TD} max-md:col-span-2`} data-testid="compare-score" data-scorer={n}>
                        <span className={`${CARD_LABEL} font-mono break-all`}>{n}: a → b</span>
                        <span className="flex flex-wrap items-center gap-x-1.5 gap-y-1">
                          <ScoreValue score={a?.mean ?? null} pass={a?.pass ?? null} reason={a?.reason} testId="compare-score-a" />
                          <span aria-hidden className="text-slate-400">
                            →
                          </span>
                          <ScoreValue score={b?.mean ?? null} pass={b?.pass ?? null} reason={b?.reason} testId="compare-score-b" />
                        </span>
                        {item.diffs[n] !== null && item.diffs[n] !== 0 && (
                          <span className="mt-0.5 block text-xs">
                            <DiffValue diff={item.diffs[n] ?? null} bySign testId="compare-diff" />
                          </span>
                        )}
                      </td>
                    );
                  })}
                  <td className={TD}>
                    <span className={CARD_LABEL}>Change</span>
                    <ChangeBadge change={item.change} />
                  </td>
                </tr>
                {isOpen && (
                  <tr id={panel} className="bg-slate-50/70 max-md:block" data-testid="compare-details">
                    <td colSpan={colSpan} className="px-4 py-4 max-md:block">
                      <div className="grid gap-4 text-sm lg:grid-cols-3">
                        <div className="min-w-0 space-y-3">
                          <div>
                            <p className="mb-1 text-xs font-medium text-slate-500">Input</p>
                            <InputText text={item.input} testId="compare-details-input" />
                          </div>
                          <div>
                            <p className="mb-1 text-xs font-medium text-slate-500">Expected</p>
                            <ExpectedValue value={item.expected} testId="compare-details-expected" />
                          </div>
                        </div>
                        <Side label="A" result={item.a} scorers={scorers} />
                        <Side label="B" result={item.b} scorers={scorers} />
                      </div>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
