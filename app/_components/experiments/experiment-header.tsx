import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatDuration, durationBetween } from '@/app/_lib/format';
import { isEnded } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { IdText } from '../id-text';
import { Badge, Card, Spinner } from '../ui';
import { When } from '../when';
import { ExperimentStatusBadge, ProgressBar } from './experiment-status';

// The top of an experiment's page: its name and status, the agent (linked) and version it ran,
// the dataset (linked), its id; its progress (live while it runs); when it was made, started and
// ended, its trials, concurrency and scorers; and why it failed, when it did.

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0" data-testid={testId}>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-sm wrap-anywhere text-slate-800">{children}</dd>
    </div>
  );
}

export function ExperimentHeader({
  experiment: e,
  agentName,
  datasetName,
  now,
  fetching,
  actions,
}: {
  experiment: Experiment;
  agentName: string | null;
  datasetName: string | null;
  now: number;
  fetching: boolean;
  actions: ReactNode;
}) {
  const ended = isEnded(e.status);
  const ran = durationBetween(e.startedAt, e.completedAt, now);
  const items = e.trials > 0 ? Math.round(e.progress.total / e.trials) : e.progress.total;
  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1.5">
          <h1 className="flex flex-wrap items-center gap-x-3 gap-y-1 text-2xl font-semibold tracking-tight text-slate-900">
            <span className="min-w-0 wrap-anywhere" data-testid="experiment-name">
              {e.name}
            </span>
            <ExperimentStatusBadge status={e.status} className="text-sm" />
            {(!ended || fetching) && <Spinner className="size-4 text-indigo-500" />}
          </h1>
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-600">
            <span>
              Agent{' '}
              <Link href={`/dashboard/agents/${e.agentId}`} className="font-medium text-indigo-600 hover:text-indigo-500" data-testid="experiment-agent-link">
                {agentName ?? e.agentId}
              </Link>{' '}
              <Link href={`/dashboard/agents/${e.agentId}#version-${e.agentVersion}`} className="font-medium text-slate-800 hover:text-indigo-600" data-testid="experiment-version">
                v{e.agentVersion}
              </Link>
              {e.label && (
                <Badge className="ml-1.5 font-mono" tone={e.label === 'production' ? 'green' : 'indigo'}>
                  {e.label}
                </Badge>
              )}
            </span>
            <span aria-hidden>·</span>
            <span>
              Dataset{' '}
              <Link href={`/dashboard/datasets/${e.datasetId}`} className="font-medium text-indigo-600 hover:text-indigo-500" data-testid="experiment-dataset-link">
                {datasetName ?? e.datasetId}
              </Link>
            </span>
            <span aria-hidden>·</span>
            <IdText value={e.id} testId="experiment-id" />
          </p>
        </div>
        <div className="flex flex-wrap gap-2">{actions}</div>
      </div>

      {e.error && (
        <div className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800" role="alert" data-testid="experiment-failure">
          <p className="font-semibold">
            Failed: <code className="font-mono">{e.error.code}</code>
          </p>
          <p className="mt-0.5 break-words">{e.error.message}</p>
        </div>
      )}

      <Card className="space-y-4 px-4 py-4 sm:px-5" data-testid="experiment-facts">
        <div>
          <div className="mb-1.5 flex flex-wrap items-baseline justify-between gap-x-3 text-xs text-slate-500">
            <span className="font-medium">Runs done</span>
            <span>
              {items.toLocaleString('en-US')} {items === 1 ? 'item' : 'items'} × {e.trials} {e.trials === 1 ? 'trial' : 'trials'}
            </span>
          </div>
          <ProgressBar experiment={e} wide />
        </div>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-3 sm:grid-cols-3 lg:grid-cols-6">
          <Fact label="Created">
            <When iso={e.createdAt} now={now} />
          </Fact>
          <Fact label="Started">{e.startedAt ? <When iso={e.startedAt} now={now} /> : <span className="text-slate-400">Not yet</span>}</Fact>
          <Fact label="Completed" testId="experiment-completed">
            {e.completedAt ? <When iso={e.completedAt} now={now} /> : <span className="text-slate-400">Not yet</span>}
          </Fact>
          <Fact label="Duration">
            {ran === null ? <span className="text-slate-400">—</span> : formatDuration(ran)}
            {ran !== null && !e.completedAt && <span className="text-xs text-slate-500"> so far</span>}
          </Fact>
          <Fact label="Concurrency">{e.concurrency} at once</Fact>
          <Fact label="Scorers" testId="experiment-scorers">
            <span className="flex flex-wrap gap-1">
              {e.scorers.map((s) => (
                <Badge key={String(s.name)} className="font-mono">
                  {String(s.name)}
                </Badge>
              ))}
            </span>
          </Fact>
        </dl>
      </Card>
    </>
  );
}
