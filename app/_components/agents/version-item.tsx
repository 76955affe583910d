'use client';

import { useScrolledTo } from '../use-hash';
import type { AgentVersion } from '@/app/_lib/types';
import { authorOf, PRODUCTION } from '@/app/_lib/versions';
import { When } from '../when';
import { Badge, Button, ButtonLink } from '../ui';

// One version in the agent's Versions list: its number and the labels pointing at it, when and
// by whom it was made, its note and digest; its runs (the executions list, filtered), "Compare"
// (with the version before it) and, for who may, "Move label here".

const SMALL = 'px-2.5 py-1 text-xs';

/** A label as a badge: production green, the others indigo; set as code (an identifier, like a scope). */
export function LabelBadge({ label }: { label: string }) {
  return (
    <Badge tone={label === PRODUCTION ? 'green' : 'indigo'} className="font-mono" data-testid="label-badge" data-label={label}>
      {label}
    </Badge>
  );
}

export function VersionItem({
  version: v,
  agentId,
  labels,
  latest,
  now,
  highlighted,
  onCompare,
  onMoveLabel,
}: {
  version: AgentVersion;
  agentId: string;
  labels: string[];
  latest: boolean;
  now: number;
  highlighted: boolean;
  /** Null when there is nothing to compare it with (the only version). */
  onCompare: (() => void) | null;
  /** Null for who may not move labels. */
  onMoveLabel: (() => void) | null;
}) {
  const ref = useScrolledTo<HTMLLIElement>(highlighted);
  return (
    <li
      ref={ref}
      id={`version-${v.version}`}
      className={`flex flex-col gap-x-4 gap-y-2 px-4 py-3 transition-colors sm:flex-row sm:items-start sm:justify-between sm:px-5 ${highlighted ? 'bg-indigo-50/70 ring-2 ring-indigo-400 ring-inset' : ''}`}
      data-testid="version-item"
      data-version={v.version}
      data-highlighted={highlighted || undefined}
      aria-current={highlighted ? 'true' : undefined}
    >
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex flex-wrap items-center gap-1.5">
          <span className="mr-1 font-semibold text-slate-900" data-testid="version-number">
            v{v.version}
          </span>
          {latest && <Badge>Latest</Badge>}
          {labels.map((l) => (
            <LabelBadge key={l} label={l} />
          ))}
        </p>
        <p className="flex flex-wrap gap-x-1.5 text-xs text-slate-500">
          <When iso={v.createdAt} now={now} testId="version-when" />
          <span aria-hidden>·</span>
          <span className="min-w-0 [overflow-wrap:anywhere]" data-testid="version-author">
            by {authorOf(v.createdBy)}
          </span>
          <span aria-hidden>·</span>
          <code className="font-mono" title={`sha256 ${v.digest}`} data-testid="version-digest">
            {v.digest.slice(0, 12)}
          </code>
        </p>
        {v.note ? (
          <p className="text-sm break-words whitespace-pre-line text-slate-700" data-testid="version-note">
            {v.note}
          </p>
        ) : (
          <p className="text-sm text-slate-400">No note</p>
        )}
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <ButtonLink href={`/dashboard/executions?agentId=${agentId}&agentVersion=${v.version}`} variant="ghost" className={SMALL} data-testid="version-runs">
          Runs
        </ButtonLink>
        {onCompare && (
          <Button variant="secondary" className={SMALL} onClick={onCompare} data-testid="version-compare">
            Compare
          </Button>
        )}
        {onMoveLabel && (
          <Button variant="secondary" className={SMALL} onClick={onMoveLabel} data-testid="version-move-label">
            Move label here
          </Button>
        )}
      </div>
    </li>
  );
}
