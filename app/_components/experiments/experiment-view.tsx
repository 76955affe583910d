'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { hasErrorCode } from '@/app/_lib/errors';
import { isEnded, scorerNames } from '@/app/_lib/experiments';
import { useEnvironment, useTRPC } from '../providers';
import { Breadcrumb, EmptyState, ExperimentIcon, LoadError, PageSkeleton } from '../states';
import { useCan } from '../team/use-can';
import { Button, ButtonLink, Card } from '../ui';
import { useClock } from '../use-clock';
import { CancelExperimentDialog } from './cancel-experiment-dialog';
import { CompareWithDialog } from './compare-with-dialog';
import { ExperimentHeader } from './experiment-header';
import { NewExperimentDialog } from './new-experiment-dialog';
import { ResultsCard } from './results-card';
import { SummaryCard } from './summary-card';
import { allResultsKey, useAllResults } from './use-all-results';

// One experiment's page (docs/evals.md, "Experiments"): its header and progress — read every
// second while it is queued or running, no more once it ended — its summary (with the baseline's
// comparison), and its results item by item. Developers, admins and owners cancel it (confirmed)
// while it runs, and start another with this one as the baseline; anyone compares it with another
// experiment of its dataset.

const LIVE_POLL_MS = 1_000;

type Dialog = 'cancel' | 'compare' | 'rerun';

export function ExperimentView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const can = useCan();
  const experiment = useQuery({
    ...trpc.experiments.get.queryOptions({ id }),
    retry: (n, err) => !hasErrorCode(err, 'resource_not_found') && n < 2,
    refetchInterval: (query) => (query.state.data && !isEnded(query.state.data.status) ? LIVE_POLL_MS : false),
  });
  const e = experiment.data;
  const ended = e ? isEnded(e.status) : false;
  const agent = useQuery({ ...trpc.agents.get.queryOptions({ id: e?.agentId ?? '' }), enabled: e !== undefined, staleTime: 60_000, retry: false });
  const dataset = useQuery({ ...trpc.datasets.get.queryOptions({ id: e?.datasetId ?? '' }), enabled: e !== undefined, staleTime: 60_000, retry: false });
  const baselineId = e?.baselineExperimentId ?? null;
  const baseline = useQuery({ ...trpc.experiments.get.queryOptions({ id: baselineId ?? '' }), enabled: baselineId !== null, staleTime: 60_000, retry: false });
  const results = useAllResults(id, { live: e !== undefined && !ended, enabled: e !== undefined });
  const now = useClock(e !== undefined && !ended);
  const [dialog, setDialog] = useState<Dialog | null>(null);

  // When it ends while the page is open: its last results, and the lists that show its status.
  const status = e?.status;
  const seen = useRef(status);
  useEffect(() => {
    const before = seen.current;
    seen.current = status;
    if (before && status && !isEnded(before) && isEnded(status)) {
      void queryClient.invalidateQueries({ queryKey: allResultsKey(trpc, id) });
      void queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
    }
  }, [status, queryClient, trpc, id]);

  if (experiment.isPending) return <PageSkeleton label="Loading the experiment" testId="experiment-loading" />;
  if (experiment.isError || !e) {
    const missing = hasErrorCode(experiment.error, 'resource_not_found');
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/experiments" parent="Experiments" current={id} />
        <Card>
          {missing ? (
            <EmptyState icon={<ExperimentIcon />} title="No such experiment here" action={<ButtonLink href="/dashboard/experiments">Back to experiments</ButtonLink>} testId="experiment-not-found">
              It may belong to {environment === 'test' ? 'live' : 'test'} mode: experiments of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This experiment" error={experiment.error} onRetry={() => void experiment.refetch()} testId="experiment-error" />
          )}
        </Card>
      </div>
    );
  }

  const close = () => setDialog(null);
  const actions = (
    <>
      <Button variant="secondary" onClick={() => setDialog('compare')} data-testid="compare-with">
        Compare with…
      </Button>
      {can.build && (
        <Button variant="secondary" onClick={() => setDialog('rerun')} title="A new experiment on this dataset, with this one as its baseline" data-testid="rerun-experiment">
          Run again
        </Button>
      )}
      {can.build && !ended && (
        <Button variant="danger" onClick={() => setDialog('cancel')} data-testid="cancel-experiment">
          Cancel
        </Button>
      )}
    </>
  );

  return (
    <div className="space-y-6" data-testid="experiment-page" data-status={e.status} data-experiment-id={e.id}>
      <Breadcrumb href="/dashboard/experiments" parent="Experiments" current={e.name} />
      <ExperimentHeader
        experiment={e}
        agentName={agent.data?.name ?? null}
        datasetName={dataset.data?.name ?? null}
        now={Math.max(now, experiment.dataUpdatedAt)}
        fetching={experiment.isFetching && ended}
        actions={actions}
      />
      <SummaryCard experiment={e} baselineName={baseline.data?.name ?? null} />
      <ResultsCard experiment={e} results={results} scorers={scorerNames(e.scorers)} />

      {dialog === 'cancel' && (
        <CancelExperimentDialog
          experiment={e}
          onClose={close}
          onDone={(cancelled) => {
            close();
            queryClient.setQueryData(trpc.experiments.get.queryKey({ id }), cancelled);
            void queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
          }}
        />
      )}
      {dialog === 'compare' && <CompareWithDialog experiment={e} onClose={close} />}
      {dialog === 'rerun' && (
        <NewExperimentDialog
          initialBaseline={e}
          onClose={close}
          onCreated={(made) => {
            close();
            void queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
            router.push(`/dashboard/experiments/${made.id}`);
          }}
        />
      )}
    </div>
  );
}
