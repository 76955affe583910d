import { CHANGE_WORDS, diffVerdict, formatDiff, formatInterval, formatScore, type Change } from '@/app/_lib/experiments';
import { Badge, cx } from '../ui';

// The small pieces every evals table shares: a score with its pass/fail badge (the reason as its
// title), an item's change against the baseline, and a difference coloured by what its interval
// says (green above 0, red below, grey when it holds 0).

export function PassBadge({ pass }: { pass: boolean | null }) {
  if (pass === null) return null;
  return (
    <Badge tone={pass ? 'green' : 'red'} data-testid="score-pass" data-pass={pass}>
      {pass ? 'Pass' : 'Fail'}
    </Badge>
  );
}

/** A score and its verdict on one line; `reason` on hover. */
export function ScoreValue({ score, pass, reason, testId = 'score-value' }: { score: number | null; pass: boolean | null; reason?: string; testId?: string }) {
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap" title={reason} data-testid={testId} data-score={score ?? ''}>
      <span className={cx('tabular-nums', score === null ? 'text-slate-400' : 'font-medium text-slate-900')}>{formatScore(score)}</span>
      <PassBadge pass={pass} />
    </span>
  );
}

const CHANGE_TONE = { regressed: 'red', unchanged: 'slate', improved: 'green' } as const satisfies Record<Change, string>;

export function ChangeBadge({ change }: { change: Change | null }) {
  if (!change) return <span className="text-xs text-slate-400">—</span>;
  return (
    <Badge tone={CHANGE_TONE[change]} data-testid="change-badge" data-change={change}>
      {change === 'regressed' ? '↓ ' : change === 'improved' ? '↑ ' : ''}
      {CHANGE_WORDS[change]}
    </Badge>
  );
}

const VERDICT_TEXT = { better: 'text-emerald-700', worse: 'text-red-700', unclear: 'text-slate-700' } as const;

/**
 * A difference of means, with its 95 % interval when there is one (`ci`): coloured only when the
 * interval excludes 0. `bySign`: one item's difference, no interval, coloured by its sign.
 */
export function DiffValue({ diff, ci, note, bySign = false, testId = 'diff-value' }: { diff: number | null; ci?: readonly [number, number] | null; note?: string; bySign?: boolean; testId?: string }) {
  const verdict = bySign ? (diff === null || Math.abs(diff) < 1e-9 ? 'unclear' : diff > 0 ? 'better' : 'worse') : ci === undefined ? 'unclear' : diffVerdict(ci);
  return (
    <span className="block" data-testid={testId} data-verdict={verdict}>
      <span className={cx('font-semibold tabular-nums', VERDICT_TEXT[verdict])}>{formatDiff(diff)}</span>
      {ci !== undefined && (
        <span className="block text-xs text-slate-500 tabular-nums" data-testid={`${testId}-interval`}>
          {ci ? `95% ${formatInterval(ci, true)}` : 'no interval'}
          {note && ` · ${note}`}
        </span>
      )}
    </span>
  );
}
