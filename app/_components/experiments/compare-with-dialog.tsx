'use client';

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { formatDateTime } from '@/app/_lib/dates';
import { errorMessage } from '@/app/_lib/errors';
import { EXPERIMENT_STATUS_WORDS } from '@/app/_lib/experiments';
import type { Experiment } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, SelectField, Spinner } from '../ui';

// "Compare with…": another experiment of the same dataset, side by side with this one on the
// compare page — the older of the two on the left (a), the newer on the right (b).

/** The compare page's address for two experiments, the older first. */
export function compareHref(x: Pick<Experiment, 'id' | 'createdAt'>, y: Pick<Experiment, 'id' | 'createdAt'>): string {
  const [a, b] = x.createdAt <= y.createdAt ? [x, y] : [y, x];
  return `/dashboard/experiments/compare?a=${a.id}&b=${b.id}`;
}

export function CompareWithDialog({ experiment: e, onClose }: { experiment: Experiment; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const list = useQuery({ ...trpc.experiments.list.queryOptions({ datasetId: e.datasetId, limit: 100 }), staleTime: 5_000 });
  const others = (list.data?.data ?? []).filter((x) => x.id !== e.id);
  const [chosen, setChosen] = useState<string | null>(null);
  const otherId = chosen ?? (others.find((x) => x.id === e.baselineExperimentId) ?? others[0])?.id ?? '';
  const other = others.find((x) => x.id === otherId);

  function submit(ev: FormEvent) {
    ev.preventDefault();
    if (other) router.push(compareHref(e, other));
  }

  return (
    <Modal
      title="Compare with…"
      description="Another experiment on the same dataset: both side by side, item by item, regressions first."
      onClose={onClose}
      onSubmit={submit}
      testId="compare-with-dialog"
      footer={<ModalActions label="Compare" onCancel={onClose} pending={!other} testId="compare-with-submit" />}
    >
      {list.isPending ? (
        <p className="flex items-center gap-2 text-sm text-slate-500" aria-busy="true">
          <Spinner className="size-3.5" /> Loading the dataset’s experiments…
        </p>
      ) : list.isError ? (
        <Alert>The dataset’s experiments could not be loaded: {errorMessage(list.error)}</Alert>
      ) : others.length === 0 ? (
        <p className="text-sm text-slate-600" data-testid="compare-with-none">
          No other experiment ran on this dataset yet. Start one (another version, other scorers) to compare them.
        </p>
      ) : (
        <SelectField id="compare-with" label="Experiment" value={otherId} onChange={(ev) => setChosen(ev.target.value)} data-testid="compare-with-select">
          {others.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name} · v{x.agentVersion} · {formatDateTime(x.createdAt)}
              {x.status === 'succeeded' ? '' : ` (${EXPERIMENT_STATUS_WORDS[x.status].toLowerCase()})`}
              {x.id === e.baselineExperimentId ? ' · its baseline' : ''}
            </option>
          ))}
        </SelectField>
      )}
    </Modal>
  );
}
