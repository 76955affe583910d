'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { expectedDraft, expectedKind, itemCount, parseExpected, type ExpectedDraft } from '@/app/_lib/datasets';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { revealProblem } from '@/app/_lib/reveal';
import type { DatasetItem, Execution } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, Button, ButtonLink, SelectField, Spinner } from '../ui';
import { ExpectedField, ExpectedValue, InputText } from './expected';

// "Add to dataset" on an ended execution's page (docs/evals.md, "Datasets"): the execution's input
// becomes an item of the dataset chosen here, and its answer (its structured output when it has
// one) the expected answer — unless the user writes another. Then a confirmation, with the way to
// the dataset. An environment holds at most 100 datasets: one page lists them all.

const DATASETS_LIMIT = 100;

/** What the item's expected answer is by default: the structured output, else the text, else none. */
const defaultExpected = (e: Execution): unknown => e.outputJson ?? e.output ?? null;

export function AddToDatasetDialog({ execution: e, onClose }: { execution: Execution; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useQuery({ ...trpc.datasets.list.queryOptions({ limit: DATASETS_LIMIT }), staleTime: 10_000 });
  const [chosen, setChosen] = useState<string | null>(null);
  const [override, setOverride] = useState(false);
  const [expected, setExpected] = useState<ExpectedDraft>(() => expectedDraft(defaultExpected(e)));
  const [submitted, setSubmitted] = useState(false);
  const [added, setAdded] = useState<{ item: DatasetItem; name: string; count: number } | null>(null);
  const add = useMutation(
    trpc.datasets.createItem.mutationOptions({
      onError: (err) => revealProblem(apiErrorOf(err)?.param === 'expected' ? 'add-to-dataset-expected' : 'add-to-dataset-error'),
    }),
  );

  const list = datasets.data?.data ?? [];
  const datasetId = chosen ?? list[0]?.id ?? '';
  const dataset = list.find((d) => d.id === datasetId);
  const parsed = parseExpected(expected);
  const expectedProblem = override && !parsed.ok ? parsed.message : null;
  const serverOnExpected = apiErrorOf(add.error)?.param === 'expected';
  const formError = add.error && !serverOnExpected ? errorMessage(add.error) : null;
  const fallback = defaultExpected(e);
  /** What an empty field means here: the execution's own answer, when it has one. */
  const blank = expectedKind(fallback) === 'none' ? 'Empty: no expected answer.' : 'Empty: its own answer is kept.';

  function submit(event: FormEvent) {
    event.preventDefault();
    if (add.isPending || !dataset) return;
    setSubmitted(true);
    if (expectedProblem) {
      revealProblem('add-to-dataset-expected');
      return;
    }
    const value = override && parsed.ok ? parsed.value : undefined;
    const name = dataset.name;
    add.mutate(
      // Written by the user: theirs (blank is none only when the execution has no answer to fall back on).
      { id: dataset.id, fromExecution: e.id, ...(value !== undefined && value !== null ? { expected: value } : {}) },
      {
        onSuccess: (item) => {
          void queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey() });
          setAdded({ item, name, count: dataset.itemCount + 1 });
        },
      },
    );
  }

  if (added) {
    return (
      <Modal
        title="Added to the dataset"
        onClose={onClose}
        testId="add-to-dataset-done"
        footer={
          <>
            <Button variant="secondary" onClick={onClose} data-testid="add-to-dataset-close">
              Done
            </Button>
            <ButtonLink href={`/dashboard/datasets/${added.item.datasetId}`} data-testid="add-to-dataset-open">
              Open the dataset
            </ButtonLink>
          </>
        }
      >
        <div className="space-y-3 text-sm text-slate-700" role="status">
          <p>
            This execution is now an item of{' '}
            <Link href={`/dashboard/datasets/${added.item.datasetId}`} className="font-medium wrap-anywhere text-indigo-600 hover:text-indigo-500" data-testid="add-to-dataset-link">
              {added.name}
            </Link>
            , which holds {itemCount(added.count)}.
          </p>
          <p className="text-xs text-slate-500">
            {expectedKind(added.item.expected) === 'none' ? 'It has no expected answer: add one on the dataset’s page.' : 'Expected answer:'}
          </p>
          {expectedKind(added.item.expected) !== 'none' && <ExpectedValue value={added.item.expected} testId="add-to-dataset-expected-value" />}
        </div>
      </Modal>
    );
  }

  const none = datasets.isSuccess && list.length === 0;
  return (
    <Modal
      title="Add to a dataset"
      description="Its input becomes an item of the dataset, and its answer the expected one unless you write another."
      onClose={onClose}
      dismissible={!add.isPending}
      onSubmit={submit}
      size="lg"
      testId="add-to-dataset-dialog"
      footer={
        none ? (
          <>
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <ButtonLink href="/dashboard/datasets?new=1" data-testid="add-to-dataset-create">
              New dataset
            </ButtonLink>
          </>
        ) : (
          <ModalActions label="Add to dataset" onCancel={onClose} pending={add.isPending || !dataset} testId="add-to-dataset-submit" />
        )
      }
    >
      <div className="space-y-5">
        {formError && (
          <Alert id="add-to-dataset-error" tabIndex={-1} data-testid="add-to-dataset-error">
            {formError}
          </Alert>
        )}
        {datasets.isPending ? (
          <p className="flex items-center gap-2 text-sm text-slate-500" aria-busy="true">
            <Spinner className="size-3.5" /> Loading your datasets…
          </p>
        ) : datasets.isError ? (
          <Alert>
            Your datasets could not be loaded: {errorMessage(datasets.error)}{' '}
            <button type="button" className="font-medium underline" onClick={() => void datasets.refetch()}>
              Try again
            </button>
          </Alert>
        ) : none ? (
          <div className="rounded-md bg-slate-50 px-4 py-3 text-sm text-slate-700 ring-1 ring-slate-200" data-testid="add-to-dataset-none">
            <p className="font-medium text-slate-900">No datasets yet</p>
            <p className="mt-1">A dataset is a set of inputs with the answers you expect. Make one, then come back to this execution to add it.</p>
          </div>
        ) : (
          <SelectField
            id="add-to-dataset-dataset"
            label="Dataset"
            value={datasetId}
            onChange={(event) => setChosen(event.target.value)}
            hint={
              <>
                Or{' '}
                <Link href="/dashboard/datasets?new=1" className="font-medium text-indigo-600 hover:text-indigo-500">
                  make a new dataset
                </Link>
                .
              </>
            }
            data-testid="add-to-dataset-dataset"
          >
            {list.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({itemCount(d.itemCount)})
              </option>
            ))}
          </SelectField>
        )}

        <div className="space-y-1.5">
          <p className="text-sm font-medium text-slate-800">Input</p>
          <div className="rounded-md px-3 py-2 text-sm ring-1 ring-slate-200 ring-inset">
            <InputText text={e.input} testId="add-to-dataset-input" />
          </div>
        </div>

        <fieldset className="space-y-3">
          <legend className="text-sm font-medium text-slate-800">Expected answer</legend>
          {!override && (
            <div className="rounded-md px-3 py-2 text-sm ring-1 ring-slate-200 ring-inset" data-testid="add-to-dataset-default">
              {expectedKind(fallback) === 'none' ? (
                <p className="text-slate-500">None: this execution {e.status === 'cancelled' ? 'was cancelled' : 'failed'} without an answer. Write the one you expect below.</p>
              ) : (
                <>
                  <p className="mb-1 text-xs text-slate-500">{e.outputJson != null ? 'Its structured output:' : 'Its answer:'}</p>
                  <ExpectedValue value={fallback} testId="add-to-dataset-default-value" />
                </>
              )}
            </div>
          )}
          <label className="flex cursor-pointer items-start gap-2.5 text-sm text-slate-800">
            <input type="checkbox" checked={override} onChange={(event) => setOverride(event.target.checked)} className="mt-0.5 accent-indigo-600" data-testid="add-to-dataset-override" />
            <span>
              Write the expected answer myself
              <span className="block text-xs text-slate-500">Its answer was not the one you want the agent to give.</span>
            </span>
          </label>
          {override && (
            <ExpectedField
              id="add-to-dataset-expected"
              label="Your expected answer"
              hint={
                expected.json
                  ? `A JSON object or list, compared with the structured output. ${blank}`
                  : `A text, compared with the answer (both trimmed). ${blank}`
              }
              draft={expected}
              onChange={setExpected}
              error={(submitted ? expectedProblem : null) ?? (serverOnExpected ? errorMessage(add.error) : null)}
              testId="add-to-dataset-expected"
            />
          )}
        </fieldset>
      </div>
    </Modal>
  );
}
