import type { ExecutionScores } from '@/app/_lib/types';
import { ScoreValue } from '../experiments/score-parts';
import { Section } from './section';

// What scorers said of an execution's answer (docs/evals.md): an experiment's scorers, or an
// online scoring rule's — each scorer's score (0–1), pass or fail, and its reason.

export function ScoresCard({ scores }: { scores: NonNullable<ExecutionScores> }) {
  const entries = Object.entries(scores);
  return (
    <Section title="Scores" testId="execution-scores" aside={<span className="text-xs text-slate-500">{entries.length === 1 ? '1 scorer' : `${entries.length} scorers`}</span>}>
      <ul className="divide-y divide-slate-100">
        {entries.map(([name, s]) => (
          <li key={name} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-4 py-3 sm:px-5" data-testid="execution-score" data-scorer={name}>
            <code className="min-w-0 font-mono text-sm font-semibold break-all text-slate-900 sm:w-40 sm:shrink-0">{name}</code>
            <ScoreValue score={s.score} pass={s.pass} />
            <p className="min-w-0 basis-full text-sm wrap-anywhere text-slate-600 sm:flex-1 sm:basis-auto" data-testid="execution-score-reason">
              {s.reason}
            </p>
          </li>
        ))}
      </ul>
    </Section>
  );
}
