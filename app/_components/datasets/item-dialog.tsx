'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { expectedDraft, parseExpected, type ExpectedDraft } from '@/app/_lib/datasets';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { revealProblem } from '@/app/_lib/reveal';
import type { DatasetItem } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, TextAreaField } from '../ui';
import { ExpectedField, MAX_ITEM_TEXT } from './expected';

// An item added by hand, or an item changed: the input the agent is sent and, optionally, the
// answer expected — a text, or JSON (the switch) that must parse to an object or a list. Problems
// show on submit, then as the fields change; what the server refuses lands on the field its
// `param` names (the 64 KB of a JSON answer), or above the form.

const FIELDS = ['input', 'expected'] as const;
type Field = (typeof FIELDS)[number];
const TARGETS: Record<Field, string> = { input: 'item-input', expected: 'item-expected' };

export function ItemDialog({ datasetId, item, onClose, onSaved }: { datasetId: string; item?: DatasetItem; onClose: () => void; onSaved: (item: DatasetItem) => void }) {
  const trpc = useTRPC();
  const create = useMutation(trpc.datasets.createItem.mutationOptions({ onSuccess: onSaved, onError: (err) => reveal(err) }));
  const update = useMutation(trpc.datasets.updateItem.mutationOptions({ onSuccess: onSaved, onError: (err) => reveal(err) }));
  const mutation = item ? update : create;
  const [input, setInput] = useState(item?.input ?? '');
  const [expected, setExpected] = useState<ExpectedDraft>(() => expectedDraft(item?.expected ?? null));
  const [submitted, setSubmitted] = useState(false);

  const parsed = parseExpected(expected);
  const problems: Record<Field, string | null> = {
    input: input.trim() ? null : 'Enter the input the agent is sent.',
    expected: parsed.ok ? null : parsed.message,
  };
  const param = apiErrorOf(mutation.error)?.param ?? null;
  const serverField = FIELDS.find((f) => f === param) ?? null;
  const fieldError = (f: Field) => (submitted ? problems[f] : null) ?? (serverField === f ? errorMessage(mutation.error) : null);
  const formError = mutation.error && !serverField ? errorMessage(mutation.error) : null;

  function reveal(err: unknown) {
    const p = apiErrorOf(err)?.param;
    revealProblem(FIELDS.includes(p as Field) ? TARGETS[p as Field] : 'item-error');
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (mutation.isPending) return;
    setSubmitted(true);
    const first = FIELDS.find((f) => problems[f]);
    if (first || !parsed.ok) {
      revealProblem(TARGETS[first ?? 'expected']);
      return;
    }
    if (item) {
      update.mutate({ id: datasetId, itemId: item.id, input, expected: parsed.value });
    } else {
      create.mutate({ id: datasetId, input, ...(parsed.value !== null ? { expected: parsed.value } : {}) });
    }
  }

  return (
    <Modal
      title={item ? 'Edit item' : 'Add an item'}
      description={
        item
          ? 'Experiments already run keep the item as it was; the next ones run on this.'
          : 'An input the agent is sent, and the answer you expect. Experiments run the agent on the input and score its answer against yours.'
      }
      onClose={onClose}
      dismissible={!mutation.isPending}
      onSubmit={submit}
      size="lg"
      testId="item-dialog"
      footer={<ModalActions label={item ? 'Save changes' : 'Add item'} onCancel={onClose} pending={mutation.isPending} testId="item-submit" />}
    >
      <div className="space-y-5">
        {formError && (
          <Alert id="item-error" tabIndex={-1} data-testid="item-error">
            {formError}
          </Alert>
        )}
        <TextAreaField
          id="item-input"
          label="Input"
          rows={4}
          value={input}
          onChange={(e) => setInput(e.target.value)}
          maxLength={MAX_ITEM_TEXT}
          placeholder="e.g. Where is order 1042?"
          hint="The user message, as the input of an execution."
          required
          autoFocus
          error={fieldError('input')}
          data-testid="item-input"
        />
        <ExpectedField id="item-expected" draft={expected} onChange={setExpected} error={fieldError('expected')} testId="item-expected" />
      </div>
    </Modal>
  );
}
