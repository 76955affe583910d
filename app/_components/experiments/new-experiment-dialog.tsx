'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { itemCount } from '@/app/_lib/datasets';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { EXPERIMENT_STATUS_WORDS } from '@/app/_lib/experiments';
import { revealProblem } from '@/app/_lib/reveal';
import { draftOf, newScorerDraft, type ScorerDraft, type ScorerField } from '@/app/_lib/scorers';
import type { Experiment } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, SelectField, Spinner, TextField } from '../ui';
import { AgentVersionFields, DEFAULT_VERSION, versionInput, type VersionChoice } from './agent-version-fields';
import { checkDrafts, ScorerBuilder, type ScorerProblems } from './scorer-builder';
import { useDatasets } from './use-names';

// "New experiment": the agent and its version, the dataset, the scorers (exact match to start
// with; a baseline's own when it is started from an experiment's page), trials and concurrency,
// and optionally a baseline among the dataset's experiments to compare with item by item. What the form can check it checks on submit; what the server
// refuses shows with its message, on the field its `param` names or above the form.

const AGENTS_LIMIT = 100;

type Field = 'name' | 'agent' | 'version' | 'dataset' | 'trials' | 'concurrency' | 'baseline';
const TARGET: Record<Field, string> = {
  name: 'exp-name',
  agent: 'exp-agent',
  version: 'exp-version',
  dataset: 'exp-dataset',
  trials: 'exp-trials',
  concurrency: 'exp-concurrency',
  baseline: 'exp-baseline',
};
const PARAMS: Record<string, Field> = { name: 'name', agentId: 'agent', version: 'version', label: 'version', datasetId: 'dataset', trials: 'trials', concurrency: 'concurrency', baselineExperimentId: 'baseline' };

const wholeIn = (text: string, min: number, max: number) => {
  const n = Number(text);
  return text.trim() !== '' && Number.isInteger(n) && n >= min && n <= max ? n : null;
};

export function NewExperimentDialog({
  initialDatasetId,
  initialBaseline,
  onClose,
  onCreated,
}: {
  initialDatasetId?: string;
  initialBaseline?: Pick<Experiment, 'id' | 'agentId' | 'datasetId' | 'scorers'>;
  onClose: () => void;
  onCreated: (experiment: Experiment) => void;
}) {
  const trpc = useTRPC();
  const agents = useQuery({ ...trpc.agents.list.queryOptions({ limit: AGENTS_LIMIT }), staleTime: 10_000 });
  const datasets = useDatasets();
  const create = useMutation(trpc.experiments.create.mutationOptions());

  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState(initialBaseline?.agentId ?? '');
  const [version, setVersion] = useState<VersionChoice>(DEFAULT_VERSION);
  const [datasetChoice, setDatasetId] = useState(initialBaseline?.datasetId ?? initialDatasetId ?? '');
  const [drafts, setDrafts] = useState<ScorerDraft[]>(() => (initialBaseline ? initialBaseline.scorers.map(draftOf) : [newScorerDraft('exact_match')]));
  const [trials, setTrials] = useState('1');
  const [concurrency, setConcurrency] = useState('5');
  const [baselineId, setBaselineId] = useState(initialBaseline?.id ?? '');
  const [submitted, setSubmitted] = useState(false);

  // The LLM judges' own agents ("Eval judge · <model>") are not offered, unless one is the baseline's.
  const agentList = (agents.data?.data ?? []).filter((a) => a.metadata.purpose !== 'eval-judge' || a.id === initialBaseline?.agentId);
  const datasetList = datasets.data?.data ?? [];
  // The first agent and dataset until one is chosen.
  const chosenAgent = agentId || agentList[0]?.id || '';
  const datasetId = datasetChoice || datasetList[0]?.id || '';
  const baselines = useQuery({ ...trpc.experiments.list.queryOptions({ datasetId, limit: 100 }), enabled: datasetId !== '', staleTime: 5_000 });

  const checked = checkDrafts('exp-scorers', drafts);
  const trialsN = wholeIn(trials, 1, 10);
  const concurrencyN = wholeIn(concurrency, 1, 20);
  const problems: Record<Field, string | null> = {
    name: name.length > 100 ? 'Use at most 100 characters.' : null,
    agent: chosenAgent ? null : 'Choose the agent to run.',
    version: null,
    dataset: datasetId ? null : 'Choose the dataset to run it on.',
    trials: trialsN === null ? 'A whole number from 1 to 10.' : null,
    concurrency: concurrencyN === null ? 'A whole number from 1 to 20.' : null,
    baseline: null,
  };

  // A refusal of the server: on its field, or on a scorer's (`scorers.2.pattern`), else above the form.
  const serverError = create.error;
  const param = apiErrorOf(serverError)?.param ?? '';
  const serverField = PARAMS[param] ?? null;
  const scorerParam = /^scorers\.(\d+)\.?(\w+)?/.exec(param);
  const serverScorer = scorerParam ? drafts[Number(scorerParam[1])] : undefined;
  const scorerProblems: ScorerProblems = { ...(submitted ? checked.problems : {}) };
  if (serverScorer && !scorerProblems[serverScorer.key]) scorerProblems[serverScorer.key] = { field: (scorerParam?.[2] ?? 'name') as ScorerField, message: errorMessage(serverError) };
  const fieldError = (f: Field) => (submitted ? problems[f] : null) ?? (serverField === f ? errorMessage(serverError) : null);
  const formError = serverError && !serverField ? errorMessage(serverError) : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (create.isPending) return;
    setSubmitted(true);
    const first = (Object.keys(problems) as Field[]).find((f) => problems[f]);
    if (first) return revealProblem(TARGET[first]);
    if (checked.first) return revealProblem(checked.first);
    create.mutate(
      {
        ...(name.trim() ? { name: name.trim() } : {}),
        agentId: chosenAgent,
        ...versionInput(version),
        datasetId,
        scorers: checked.scorers,
        trials: trialsN!,
        concurrency: concurrencyN!,
        ...(baselineId ? { baselineExperimentId: baselineId } : {}),
      },
      {
        onSuccess: onCreated,
        onError: (err) => {
          const p = apiErrorOf(err)?.param ?? '';
          const f = PARAMS[p];
          const s = /^scorers\.(\d+)/.exec(p);
          revealProblem(f ? TARGET[f] : s ? `exp-scorers-${s[1]}-name` : 'exp-error');
        },
      },
    );
  }

  const loading = agents.isPending || datasets.isPending;
  const loadError = agents.error ?? datasets.error;
  const noAgents = agents.isSuccess && agentList.length === 0;
  const noDatasets = datasets.isSuccess && datasetList.length === 0;
  const ready = !loading && !loadError && !noAgents && !noDatasets;

  return (
    <Modal
      title="New experiment"
      description="Runs every item of the dataset through the agent version and scores each answer."
      onClose={onClose}
      dismissible={!create.isPending}
      onSubmit={submit}
      size="lg"
      testId="new-experiment-dialog"
      footer={<ModalActions label="Start experiment" onCancel={onClose} pending={create.isPending || !ready} testId="exp-submit" />}
    >
      <div className="space-y-5">
        {formError && (
          <Alert id="exp-error" tabIndex={-1} data-testid="exp-error">
            {formError}
          </Alert>
        )}
        {loading ? (
          <p className="flex items-center gap-2 text-sm text-slate-500" aria-busy="true">
            <Spinner className="size-3.5" /> Loading your agents and datasets…
          </p>
        ) : loadError ? (
          <Alert>Your agents or datasets could not be loaded: {errorMessage(loadError)}</Alert>
        ) : noAgents || noDatasets ? (
          <div className="rounded-md bg-slate-50 px-4 py-3 text-sm text-slate-700 ring-1 ring-slate-200" data-testid="exp-missing">
            <p className="font-medium text-slate-900">{noAgents ? 'No agents yet' : 'No datasets yet'}</p>
            <p className="mt-1">
              An experiment runs an agent over a dataset.{' '}
              <Link href={noAgents ? '/dashboard/agents/new' : '/dashboard/datasets?new=1'} className="font-medium text-indigo-600 hover:text-indigo-500">
                {noAgents ? 'Create an agent' : 'Make a dataset'}
              </Link>{' '}
              first.
            </p>
          </div>
        ) : (
          <>
            <AgentVersionFields
              agents={agentList}
              agentId={chosenAgent}
              version={version}
              onAgent={setAgentId}
              onVersion={setVersion}
              agentError={fieldError('agent')}
              versionError={fieldError('version')}
            />
            <SelectField
              id="exp-dataset"
              label="Dataset"
              value={datasetId}
              onChange={(e) => {
                setDatasetId(e.target.value);
                setBaselineId('');
              }}
              error={fieldError('dataset')}
              data-testid="exp-dataset"
            >
              {datasetList.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({itemCount(d.itemCount)})
                </option>
              ))}
            </SelectField>
            <ScorerBuilder id="exp-scorers" drafts={drafts} onChange={setDrafts} problems={scorerProblems} />
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField id="exp-trials" label="Trials" type="number" min={1} max={10} step={1} value={trials} onChange={(e) => setTrials(e.target.value)} hint="Runs per item, 1–10: an item’s score is their mean." error={fieldError('trials')} data-testid="exp-trials" />
              <TextField
                id="exp-concurrency"
                label="Concurrency"
                type="number"
                min={1}
                max={20}
                step={1}
                value={concurrency}
                onChange={(e) => setConcurrency(e.target.value)}
                hint="Runs at once, 1–20, within your workspace’s limits."
                error={fieldError('concurrency')}
                data-testid="exp-concurrency"
              />
            </div>
            <SelectField
              id="exp-baseline"
              label="Baseline (optional)"
              value={baselineId}
              onChange={(e) => setBaselineId(e.target.value)}
              hint="An earlier experiment on this dataset: each item is compared with its result there."
              error={fieldError('baseline')}
              data-testid="exp-baseline"
            >
              <option value="">None</option>
              {(baselines.data?.data ?? []).map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name} (v{x.agentVersion}
                  {x.status === 'succeeded' ? '' : `, ${EXPERIMENT_STATUS_WORDS[x.status].toLowerCase()}`})
                </option>
              ))}
            </SelectField>
            <TextField
              id="exp-name"
              label="Name (optional)"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={100}
              placeholder="Default: the dataset’s name and the version"
              error={fieldError('name')}
              data-testid="exp-name"
            />
          </>
        )}
      </div>
    </Modal>
  );
}
