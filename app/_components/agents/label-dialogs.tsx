'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { errorMessage } from '@/app/_lib/errors';
import type { Agent } from '@/app/_lib/types';
import { labelProblem, MAX_LABELS, PRODUCTION, sortedLabels } from '@/app/_lib/versions';
import { ConfirmDialog } from '../confirm-dialog';
import { Modal, ModalActions } from '../modal';
import { Alert, SelectField, TextField } from '../ui';
import { useMoveLabel, useRemoveLabel } from './use-labels';

// The dialogs that move an agent's labels (docs/versions.md, "Labels"): "Move label here" on a
// version (an existing label, or a new one), "Add label" (a new one, at a version chosen here),
// removing one, and production following the latest again. Moving production says what it
// means before anything moves: every execution started from then on, in every process, runs it.

const NEW = '\u0000new';

/** What moving production to `version` does, said before it moves. */
export function ProductionWarning({ version, follows = false }: { version: number; follows?: boolean }) {
  return (
    <Alert tone="amber" data-testid="production-warning">
      <p className="font-semibold">Executions from now on run v{version}.</p>
      <p className="mt-1">
        Every execution started after this — in every process: the API, schedules, the playground — runs{' '}
        {follows ? `v${version}, then each new version as it is saved` : `v${version}`}, unless it asks for another version or label. Runs already
        started or queued, and later turns of conversations already begun, keep the version they started with.
      </p>
      {!follows && <p className="mt-1">Production stays on v{version} until it is moved again: versions saved later do not run by default (“Follow latest” undoes this).</p>}
    </Alert>
  );
}

/** "production (v3)" in a list of labels. */
const labelOption = (label: string, version: number) => `${label} (now v${version})`;

/**
 * Points a label at a version: `version` fixed ("Move label here" on it), or chosen here (null:
 * "Add label", which makes a new one). `onMoved` gets the label and where it points now.
 */
export function MoveLabelDialog({ agent, version, onClose, onMoved }: { agent: Agent; version: number | null; onClose: () => void; onMoved: (label: string) => void }) {
  const move = useMoveLabel(agent.id);
  const labels = sortedLabels(agent.labels);
  const adding = version === null;
  // Never production by default: the first other label not already here, or a new one.
  const [choice, setChoice] = useState(() => (adding ? NEW : (labels.find(([l, v]) => l !== PRODUCTION && v !== version)?.[0] ?? NEW)));
  const [name, setName] = useState('');
  const [target, setTarget] = useState<string>(String(version ?? agent.version));
  const [checked, setChecked] = useState(false);
  const full = Object.keys(agent.labels).length >= MAX_LABELS;

  const label = choice === NEW ? name.trim() : choice;
  const to: number | 'latest' = target === 'latest' ? 'latest' : Number(target);
  const shownVersion = to === 'latest' ? agent.version : to;
  const problem = choice === NEW ? labelProblem(label, agent.labels) : null;
  const already = choice !== NEW && agent.labels[choice] === to;

  function submit(e: FormEvent) {
    e.preventDefault();
    setChecked(true);
    if (problem) {
      document.getElementById('move-label-name')?.focus();
      return;
    }
    move.mutate({ id: agent.id, label, version: to }, { onSuccess: () => onMoved(label) });
  }

  const production = label === PRODUCTION;
  const title: ReactNode = adding ? 'Add a label' : `Move a label to v${version}`;
  return (
    <Modal
      title={title}
      description={adding ? 'A label names a version: an execution that asks for the label runs the version it points at.' : 'Executions that ask for the label run this version from now on.'}
      onClose={onClose}
      dismissible={!move.isPending}
      onSubmit={submit}
      testId="move-label-dialog"
      footer={<ModalActions label={production ? `Move production to v${shownVersion}` : adding ? 'Add label' : 'Move label'} onCancel={onClose} pending={move.isPending} testId="move-label-confirm" />}
    >
      <div className="space-y-4">
        {move.error && <Alert data-testid="move-label-error">{errorMessage(move.error)}</Alert>}
        {!adding && (
          <SelectField id="move-label-select" label="Label" value={choice} onChange={(e) => setChoice(e.target.value)} data-testid="move-label-select">
            {labels.map(([l, v]) => (
              <option key={l} value={l}>
                {labelOption(l, v)}
              </option>
            ))}
            <option value={NEW} disabled={full}>
              New label…
            </option>
          </SelectField>
        )}
        {choice === NEW && (
          <TextField
            id="move-label-name"
            label={adding ? 'Name' : 'New label’s name'}
            placeholder="e.g. staging"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={40}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            hint={`1–40 lower-case letters, digits or “-”; at most ${MAX_LABELS} labels an agent.`}
            error={checked ? problem : null}
            data-testid="move-label-name"
          />
        )}
        {adding && (
          <SelectField id="move-label-version" label="Version" value={target} onChange={(e) => setTarget(e.target.value)} data-testid="move-label-version">
            <option value="latest">The latest, following new versions (now v{agent.version})</option>
            {Array.from({ length: agent.version }, (_, i) => agent.version - i).map((v) => (
              <option key={v} value={v}>
                v{v}
                {v === agent.version ? ' (the latest)' : ''}
              </option>
            ))}
          </SelectField>
        )}
        {already && (
          <p className="text-sm text-slate-600" data-testid="move-label-already">
            {choice} already points at v{shownVersion}
            {choice === PRODUCTION && shownVersion === agent.version ? ': moving it here pins it, so versions saved later do not run by default.' : '.'}
          </p>
        )}
        {production && <ProductionWarning version={shownVersion} follows={to === 'latest'} />}
      </div>
    </Modal>
  );
}

/** Removes a label (never production): executions that ask for it are refused from then on. */
export function RemoveLabelDialog({ agent, label, onClose, onRemoved }: { agent: Agent; label: string; onClose: () => void; onRemoved: () => void }) {
  const remove = useRemoveLabel(agent.id);
  return (
    <ConfirmDialog
      title={`Remove the ${label} label?`}
      label="Remove label"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: agent.id, label }, { onSuccess: onRemoved })}
      pending={remove.isPending}
      error={remove.error}
      testId="remove-label-dialog"
      confirmTestId="remove-label-confirm"
    >
      <p>
        It points at v{agent.labels[label]}. Executions that ask for <code className="font-mono text-xs">{label}</code> are refused from now on (400,
        param <code className="font-mono text-xs">label</code>); the version itself stays, and the other labels do not move.
      </p>
    </ConfirmDialog>
  );
}

/** Production follows the latest version again (after it was pinned by a move or a roll back). */
export function FollowLatestDialog({ agent, onClose, onMoved }: { agent: Agent; onClose: () => void; onMoved: () => void }) {
  const move = useMoveLabel(agent.id);
  return (
    <ConfirmDialog
      title="Make production follow the latest?"
      label={`Run v${agent.version} in production`}
      onClose={onClose}
      onConfirm={() => move.mutate({ id: agent.id, label: PRODUCTION, version: 'latest' }, { onSuccess: onMoved })}
      pending={move.isPending}
      error={move.error}
      testId="follow-latest-dialog"
      confirmTestId="follow-latest-confirm"
    >
      <p>
        Production points at v{agent.labels[PRODUCTION]} now. From now on it runs the latest version, v{agent.version}, and each version saved after it.
      </p>
      <ProductionWarning version={agent.version} follows />
    </ConfirmDialog>
  );
}
