'use client';

import { useQuery } from '@tanstack/react-query';
import { type ReactNode } from 'react';
import { hasChanges } from '@/app/_lib/line-diff';
import type { AgentVersion } from '@/app/_lib/types';
import { compareConfigs, type ToolChange } from '@/app/_lib/versions';
import { useTRPC } from '../providers';
import { LoadError } from '../states';
import { Badge, Button, cx } from '../ui';
import { DiffBlock } from './diff-block';

// Two versions of an agent side by side (docs/versions.md): any two, chosen here; the
// instructions as a line diff, the other settings field by field (what changed highlighted),
// the tools by name, each as JSON (a changed one as a diff of its JSON). A version never
// changes, so each is read once.

const SELECT =
  'rounded-md border-0 bg-white py-1.5 pr-8 pl-2.5 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

export interface Comparison {
  from: number;
  to: number;
}

function VersionSelect({ id, label, value, latest, onChange }: { id: string; label: string; value: number; latest: number; onChange: (v: number) => void }) {
  return (
    <>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <select id={id} className={SELECT} value={value} onChange={(e) => onChange(Number(e.target.value))} data-testid={id}>
        {Array.from({ length: latest }, (_, i) => latest - i).map((v) => (
          <option key={v} value={v}>
            v{v}
          </option>
        ))}
      </select>
    </>
  );
}

function Heading({ title, changed, children }: { title: string; changed: boolean; children?: ReactNode }) {
  return (
    <h4 className="mb-2 flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
      {title}
      <Badge tone={changed ? 'amber' : 'slate'}>{changed ? 'Changed' : 'Unchanged'}</Badge>
      {children}
    </h4>
  );
}

const TOOL_STATUS: Record<ToolChange['status'], { words: string; tone: 'green' | 'red' | 'amber' | 'slate' }> = {
  added: { words: 'Added', tone: 'green' },
  removed: { words: 'Removed', tone: 'red' },
  changed: { words: 'Changed', tone: 'amber' },
  same: { words: 'Unchanged', tone: 'slate' },
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "The instructions and 2 settings changed from v1 to v2." */
function summaryOf(from: string, to: string, sameDigest: boolean, parts: (string | null)[]): string {
  if (sameDigest) return `${from} and ${to} have the same digest: they behave the same as far as can be shown (a secret value alone may differ).`;
  const named = parts.filter((p): p is string => p !== null);
  if (named.length === 0) return `${from} and ${to} differ.`;
  const list = named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return `${list[0]!.toUpperCase()}${list.slice(1)} changed from ${from} to ${to}.`;
}

function Differences({ before, after }: { before: AgentVersion; after: AgentVersion }) {
  const { instructions, fields, tools } = compareConfigs(before.config, after.config);
  const [from, to] = [`v${before.version}`, `v${after.version}`];
  const changedFields = fields.filter((f) => f.changed).length;
  const changedTools = tools.filter((t) => t.status !== 'same').length;
  const instructionsChanged = hasChanges(instructions);
  const sameDigest = before.digest === after.digest;
  return (
    <div className="space-y-6" data-testid="version-diff-body">
      <p className="text-sm text-slate-600" data-testid="version-diff-summary">
        {summaryOf(from, to, sameDigest, [instructionsChanged ? 'the instructions' : null, changedFields ? plural(changedFields, 'setting') : null, changedTools ? plural(changedTools, 'tool') : null])}
      </p>

      <section data-testid="diff-instructions">
        <Heading title="Instructions" changed={instructionsChanged} />
        {before.config.instructions === null && after.config.instructions === null ? (
          <p className="text-sm text-slate-500">None in either version.</p>
        ) : (
          <DiffBlock lines={instructions} from={from} to={to} testId="instructions-diff" />
        )}
      </section>

      <section data-testid="diff-settings">
        <Heading title="Settings" changed={changedFields > 0} />
        <div className="overflow-hidden rounded-md ring-1 ring-slate-200">
          <div className="hidden grid-cols-[11rem_minmax(0,1fr)_minmax(0,1fr)] gap-3 border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs font-medium text-slate-600 sm:grid">
            <span>Setting</span>
            <span>{from}</span>
            <span>{to}</span>
          </div>
          <dl className="divide-y divide-slate-100 text-sm">
            {fields.map((f) => (
              <div
                key={f.field}
                className={cx('grid grid-cols-2 gap-x-3 gap-y-0.5 px-3 py-2 sm:grid-cols-[11rem_minmax(0,1fr)_minmax(0,1fr)]', f.changed && 'bg-amber-50')}
                data-testid="diff-field"
                data-field={f.field}
                data-changed={f.changed}
              >
                <dt className="col-span-2 flex items-center gap-2 text-xs font-medium text-slate-600 sm:col-span-1 sm:text-sm">
                  {f.label}
                  {f.changed && (
                    <>
                      <span aria-hidden className="size-1.5 rounded-full bg-amber-500" />
                      <span className="sr-only">(changed)</span>
                    </>
                  )}
                </dt>
                <dd className="min-w-0 break-words">
                  <span className="text-xs text-slate-400 sm:hidden">{from} </span>
                  <span className={f.changed ? 'text-red-800 line-through decoration-red-300' : 'text-slate-700'}>{f.before}</span>
                </dd>
                <dd className="min-w-0 break-words">
                  <span className="text-xs text-slate-400 sm:hidden">{to} </span>
                  <span className={f.changed ? 'font-medium text-emerald-800' : 'text-slate-700'}>{f.after}</span>
                </dd>
              </div>
            ))}
          </dl>
        </div>
      </section>

      <section data-testid="diff-tools">
        <Heading title="Tools" changed={changedTools > 0} />
        {tools.length === 0 ? (
          <p className="text-sm text-slate-500">No tools in either version.</p>
        ) : (
          <ul className="space-y-3">
            {tools.map((t) => (
              <li key={t.name} className="space-y-2" data-testid="diff-tool" data-status={t.status}>
                <p className="flex flex-wrap items-center gap-2">
                  <code className="font-mono text-xs font-semibold text-slate-900">{t.name}</code>
                  <Badge tone={TOOL_STATUS[t.status].tone}>{TOOL_STATUS[t.status].words}</Badge>
                </p>
                {t.status !== 'same' && <DiffBlock lines={t.lines} from={from} to={to} testId="tool-diff" />}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** The comparison of two versions, with the two chosen here; `onChange` picks others. */
export function VersionDiff({ agentId, latest, comparison, onChange, onClose }: { agentId: string; latest: number; comparison: Comparison; onChange: (c: Comparison) => void; onClose: () => void }) {
  const trpc = useTRPC();
  const { from, to } = comparison;
  const read = (version: number) => ({ ...trpc.agents.version.queryOptions({ id: agentId, version }), staleTime: Infinity });
  const before = useQuery(read(from));
  const after = useQuery(read(to));
  const failed = before.error ?? after.error;

  return (
    <section className="border-b border-slate-200 bg-slate-50/60 px-4 py-4 sm:px-5" aria-label="Compare versions" data-testid="version-diff">
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
        <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
          Compare
          <VersionSelect id="diff-from" label="The older version" value={from} latest={latest} onChange={(v) => onChange({ from: v, to })} />
          with
          <VersionSelect id="diff-to" label="The newer version" value={to} latest={latest} onChange={(v) => onChange({ from, to: v })} />
        </h3>
        <Button variant="ghost" className="ml-auto gap-1.5 px-2.5 py-1" onClick={onClose} aria-label="Close the comparison" data-testid="version-diff-close">
          <span aria-hidden>✕</span>
          <span aria-hidden className="max-sm:hidden">
            Close
          </span>
        </Button>
      </div>
      {from === to ? (
        <p className="text-sm text-slate-600" data-testid="version-diff-same">
          Choose two different versions.
        </p>
      ) : failed ? (
        <LoadError
          what="A version"
          error={failed}
          onRetry={() => {
            void before.refetch();
            void after.refetch();
          }}
          testId="version-diff-error"
        />
      ) : before.data && after.data ? (
        <Differences before={before.data} after={after.data} />
      ) : (
        <div className="h-40 animate-pulse rounded-md bg-slate-100" aria-busy="true" aria-label="Loading the versions" data-testid="version-diff-loading" />
      )}
    </section>
  );
}
