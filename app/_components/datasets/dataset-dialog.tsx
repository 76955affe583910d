'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useForm, type FieldErrors } from 'react-hook-form';
import { z } from 'zod';
import { FORM_ERROR, firstWithError, messageOf, showServerError } from '@/app/_lib/forms';
import { revealProblem } from '@/app/_lib/reveal';
import type { Dataset } from '@/app/_lib/types';
import { createDatasetInput } from '@/server/modules/evals/dataset-schemas';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, TextAreaField, TextField } from '../ui';

// A new dataset, or a dataset's name and description changed. The form is checked with the
// server's own createDatasetInput (a blank description is none: on an edit, it removes the one
// there was); what only the server knows (the 100 datasets an environment may hold) comes back
// as its message, on the field its `param` names or above the form.

interface DatasetForm {
  name: string;
  description: string;
}

const draftSchema = z.object({ name: z.string(), description: z.string().transform((d) => (d.trim() ? d : undefined)) });
const formSchema = draftSchema.pipe(createDatasetInput as unknown as z.ZodType<z.output<typeof createDatasetInput>, z.output<typeof draftSchema>>);

function datasetMessage(issue: { code: string; path?: PropertyKey[] }): string | undefined {
  switch (issue.path?.[0]) {
    case 'name':
      return issue.code === 'too_small' ? 'Give the dataset a name.' : 'Use at most 100 characters.';
    case 'description':
      return 'Use at most 1,000 characters.';
    default:
      return undefined;
  }
}

const FIELDS = ['name', 'description'];
const TARGETS: Record<string, string> = { name: 'dataset-name', description: 'dataset-description' };
const placeOf = (param: string) => (FIELDS.includes(param) ? param : null);

export function DatasetDialog({ dataset, onClose, onSaved }: { dataset?: Dataset; onClose: () => void; onSaved: (dataset: Dataset) => void }) {
  const trpc = useTRPC();
  const create = useMutation(trpc.datasets.create.mutationOptions());
  const update = useMutation(trpc.datasets.update.mutationOptions());
  const pending = create.isPending || update.isPending;
  const { register, handleSubmit, setError, formState } = useForm<DatasetForm, unknown, z.output<typeof formSchema>>({
    defaultValues: { name: dataset?.name ?? '', description: dataset?.description ?? '' },
    resolver: zodResolver(formSchema, { error: datasetMessage }),
    shouldFocusError: false,
  });
  const fieldError = (name: string) => messageOf(formState.errors, name);
  const reveal = (errors: FieldErrors<DatasetForm>) => revealProblem(TARGETS[firstWithError(errors, FIELDS) ?? ''] ?? null);

  const onSubmit = handleSubmit(async (input) => {
    try {
      onSaved(
        dataset
          ? await update.mutateAsync({ id: dataset.id, name: input.name, description: input.description ?? null })
          : await create.mutateAsync(input),
      );
    } catch (err) {
      revealProblem(TARGETS[showServerError(err, setError, placeOf) ?? ''] ?? null);
    }
  }, reveal);
  const formError = fieldError(FORM_ERROR);

  return (
    <Modal
      title={dataset ? `Edit “${dataset.name}”` : 'New dataset'}
      description={
        dataset
          ? 'Its name and description. Experiments already run keep the items they were run on.'
          : 'A set of inputs with the answers you expect. Add its items next, by hand or from executions.'
      }
      onClose={onClose}
      dismissible={!pending}
      onSubmit={(e) => void onSubmit(e)}
      testId="dataset-dialog"
      footer={<ModalActions label={dataset ? 'Save changes' : 'Create dataset'} onCancel={onClose} pending={pending} testId="dataset-submit" />}
    >
      <div className="space-y-5">
        {formError && <Alert data-testid="dataset-error">{formError}</Alert>}
        <TextField
          id="dataset-name"
          label="Name"
          placeholder="e.g. Order questions"
          {...register('name')}
          maxLength={100}
          required
          autoFocus
          error={fieldError('name')}
          data-testid="dataset-name"
        />
        <TextAreaField
          id="dataset-description"
          label="Description (optional)"
          placeholder="e.g. Questions customers ask about their orders, with the answers we expect."
          rows={3}
          {...register('description')}
          maxLength={1000}
          error={fieldError('description')}
          data-testid="dataset-description"
        />
      </div>
    </Modal>
  );
}
