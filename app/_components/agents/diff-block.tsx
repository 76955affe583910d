'use client';

import { useState } from 'react';
import { foldUnchanged, hasChanges, type DiffLine } from '@/app/_lib/line-diff';
import { cx } from '../ui';

// A line diff as a reader sees one: removed lines red with "−", added lines green with "+",
// each with its line number in the version it is from; long runs of unchanged lines folded away
// (three kept next to each change), all of them shown on demand. Lines wrap: nothing scrolls
// sideways on a phone.

const ROW: Record<DiffLine['type'], string> = {
  same: 'text-slate-700',
  removed: 'bg-red-50 text-red-900',
  added: 'bg-emerald-50 text-emerald-900',
};
const SIGN: Record<DiffLine['type'], string> = { same: ' ', removed: '−', added: '+' };
const WORD: Record<DiffLine['type'], string> = { same: '', removed: 'Removed: ', added: 'Added: ' };

function Line({ line }: { line: DiffLine }) {
  const number = line.type === 'added' ? line.newLine : line.oldLine;
  return (
    <div className={cx('grid grid-cols-[2.25rem_1rem_minmax(0,1fr)]', ROW[line.type])} data-testid="diff-line" data-type={line.type}>
      <span className="pr-2 text-right text-slate-400 select-none" aria-hidden>
        {number}
      </span>
      <span className="select-none" aria-hidden>
        {SIGN[line.type]}
      </span>
      <span className="pr-2 break-words whitespace-pre-wrap">
        <span className="sr-only">{WORD[line.type]}</span>
        {line.text === '' ? '\u00a0' : line.text}
      </span>
    </div>
  );
}

/** `from`/`to`: the two versions' names, for the legend. */
export function DiffBlock({ lines, from, to, testId }: { lines: DiffLine[]; from: string; to: string; testId: string }) {
  const [all, setAll] = useState(false);
  const folded = foldUnchanged(lines);
  const shown = all ? lines : folded;
  const canFold = folded.some((l) => l.type === 'skip');
  const changed = hasChanges(lines);
  return (
    <div className="overflow-hidden rounded-md ring-1 ring-slate-200" data-testid={testId}>
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs text-slate-600">
        <span>
          <span className="text-red-700">− {from}</span> <span className="text-emerald-700">+ {to}</span>
        </span>
        {changed && canFold && (
          <button type="button" className="font-medium text-indigo-600 hover:text-indigo-500" onClick={() => setAll(!all)} data-testid={`${testId}-toggle`}>
            {all ? 'Fold unchanged lines' : 'Show every line'}
          </button>
        )}
      </div>
      <div className="py-1 font-mono text-xs leading-5">
        {shown.map((line, i) =>
          line.type === 'skip' ? (
            <button
              type="button"
              key={`skip-${i}`}
              onClick={() => setAll(true)}
              className="block w-full bg-slate-50 px-3 py-0.5 text-left text-slate-500 hover:bg-slate-100 hover:text-slate-700"
              data-testid="diff-skip"
            >
              ⋯ {line.count} unchanged line{line.count === 1 ? '' : 's'}
            </button>
          ) : (
            <Line key={i} line={line} />
          ),
        )}
      </div>
    </div>
  );
}
