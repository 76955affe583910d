'use client';

import type { Agent } from '@/app/_lib/types';
import { MAX_LABELS, PRODUCTION, sortedLabels } from '@/app/_lib/versions';
import { Button } from '../ui';
import { LabelBadge } from './version-item';

// The agent's labels above its versions: each with the version it points at (a link to it in
// the list), production first with what it runs by default; for who may change the agent,
// "Roll back" and "Follow latest" on production, "Remove" on the others, and "Add label".

const SMALL = 'px-2.5 py-1 text-xs';

export type LabelAction = { type: 'rollback' } | { type: 'follow' } | { type: 'remove'; label: string } | { type: 'add' };

export function LabelsBar({ agent, canChange, onAction }: { agent: Agent; canChange: boolean; onAction: (a: LabelAction) => void }) {
  const labels = sortedLabels(agent.labels);
  const production = agent.labels[PRODUCTION];
  const pinned = production !== undefined && production !== agent.version;
  const full = labels.length >= MAX_LABELS;
  return (
    <div className="border-b border-slate-200 px-4 py-3 sm:px-5" data-testid="labels-bar">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Labels</h3>
        {canChange && (
          <Button
            variant="ghost"
            className={SMALL}
            onClick={() => onAction({ type: 'add' })}
            disabled={full}
            title={full ? `An agent has at most ${MAX_LABELS} labels: remove one first.` : undefined}
            data-testid="add-label"
          >
            <span aria-hidden>+</span> Add label
          </Button>
        )}
      </div>
      <ul className="mt-2 divide-y divide-slate-100">
        {labels.map(([label, version]) => (
          <li key={label} className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1.5 py-2" data-testid="label-row" data-label={label} data-version={version}>
            <p className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-sm">
              <LabelBadge label={label} />
              <span aria-hidden className="text-slate-400">
                →
              </span>
              <a href={`#version-${version}`} className="font-semibold text-indigo-600 hover:text-indigo-500" data-testid="label-version">
                v{version}
              </a>
              {label === PRODUCTION && (
                <span className="text-xs text-slate-500" data-testid="production-state">
                  {pinned ? `pinned: runs by default; the latest is v${agent.version}` : 'the latest: runs by default'}
                </span>
              )}
            </p>
            {canChange && (
              <div className="flex flex-wrap gap-2">
                {label === PRODUCTION ? (
                  <>
                    {pinned && (
                      <Button variant="secondary" className={SMALL} onClick={() => onAction({ type: 'follow' })} data-testid="follow-latest">
                        Follow latest
                      </Button>
                    )}
                    {agent.version > 1 && (
                      <Button variant="secondary" className={SMALL} onClick={() => onAction({ type: 'rollback' })} data-testid="rollback">
                        Roll back
                      </Button>
                    )}
                  </>
                ) : (
                  <Button variant="dangerGhost" className={SMALL} onClick={() => onAction({ type: 'remove', label })} data-testid="remove-label">
                    Remove
                  </Button>
                )}
              </div>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
