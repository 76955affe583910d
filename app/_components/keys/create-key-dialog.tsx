'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm, useWatch, type FieldErrors } from 'react-hook-form';
import { z } from 'zod';
import type { DashboardEnvironment } from '@/app/_lib/environment';
import { toDateTimeLocal } from '@/app/_lib/format';
import { FORM_ERROR, firstWithError, messageOf, showServerError } from '@/app/_lib/forms';
import { revealProblem } from '@/app/_lib/reveal';
import type { CreatedKey, ScopeInfo } from '@/app/_lib/types';
import { createKeyInput } from '@/server/modules/keys/schemas';
import { SCOPES, type Scope } from '@/server/modules/vocabulary/scopes';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, TextField } from '../ui';

// The form's values, as typed, and the server's own createKeyInput behind them: the scopes in
// the table's order, the local expiry as an ISO time. The expiry being in the future, and the
// scopes the caller may grant, only the server knows: its answer lands on the field.

interface KeyForm {
  name: string;
  environment: DashboardEnvironment;
  scopes: Scope[];
  expiresAt: string;
}

const draftSchema = z.object({
  name: z.string(),
  environment: z.enum(['live', 'test']),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'Select at least one scope.')
    .transform((chosen) => SCOPES.filter((s) => chosen.includes(s))),
  // datetime-local is the browser's time zone; the API takes an ISO time (an invalid one fails its check).
  expiresAt: z.string().transform((local) => {
    if (!local) return undefined;
    const at = new Date(local);
    return Number.isNaN(at.getTime()) ? local : at.toISOString();
  }),
});
const keyFormSchema = draftSchema.pipe(createKeyInput as unknown as z.ZodType<z.output<typeof createKeyInput>, z.output<typeof draftSchema>>);

function keyMessage(issue: { code: string; path?: PropertyKey[] }): string | undefined {
  switch (issue.path?.[0]) {
    case 'name':
      return issue.code === 'too_small' ? 'Give the key a name.' : 'Use at most 100 characters.';
    case 'expiresAt':
      return 'Enter a date and time, or leave it empty.';
    default:
      return undefined;
  }
}

const FIELDS = ['name', 'scopes', 'expiresAt'];
/** Where each field's problem is shown (see revealProblem). */
const TARGETS: Record<string, string> = { name: 'key-name', scopes: 'scopes-error', expiresAt: 'key-expires' };
/** The field a server error belongs to (`scopes.1` → `scopes`), or null for the form. */
const placeOf = (param: string) => (FIELDS.includes(param.split('.')[0]!) ? param.split('.')[0]! : null);

export function CreateKeyDialog({
  scopes: scopeTable,
  environment: current,
  onClose,
  onCreated,
}: {
  scopes: readonly ScopeInfo[];
  environment: DashboardEnvironment;
  onClose: () => void;
  onCreated: (key: CreatedKey) => void;
}) {
  const trpc = useTRPC();
  // gcTime 0: the response (which holds the secret) leaves the mutation cache with this dialog.
  const create = useMutation({ ...trpc.keys.create.mutationOptions(), gcTime: 0 });
  const [minExpiry] = useState(() => toDateTimeLocal(new Date()));
  const { register, control, handleSubmit, setError, formState } = useForm<KeyForm, unknown, z.output<typeof keyFormSchema>>({
    defaultValues: { name: '', environment: current, scopes: scopeTable.filter((s) => s.isDefault).map((s) => s.scope), expiresAt: '' },
    resolver: zodResolver(keyFormSchema, { error: keyMessage }),
    shouldFocusError: false,
  });
  const environment = useWatch({ control, name: 'environment' });
  const fieldError = (name: string) => messageOf(formState.errors, name);
  const reveal = (errors: FieldErrors<KeyForm>) => revealProblem(TARGETS[firstWithError(errors, FIELDS) ?? ''] ?? null);

  const onSubmit = handleSubmit(async (input) => {
    try {
      onCreated(await create.mutateAsync(input));
    } catch (err) {
      revealProblem(TARGETS[showServerError(err, setError, placeOf) ?? ''] ?? null);
    }
  }, reveal);
  const formError = fieldError(FORM_ERROR);

  return (
    <Modal
      title="Create an API key"
      description="The secret is shown once, right after creation."
      onClose={onClose}
      dismissible={!create.isPending}
      onSubmit={(e) => void onSubmit(e)}
      testId="create-key-dialog"
      size="lg"
      footer={
        <ModalActions label="Create key" onCancel={onClose} pending={create.isPending} testId="create-key-submit" />
      }
    >
      <div className="space-y-6">
        {formError && <Alert data-testid="create-key-error">{formError}</Alert>}
        <TextField
          id="key-name"
          label="Name"
          placeholder="e.g. Production backend"
          {...register('name')}
          maxLength={100}
          required
          autoFocus
          error={fieldError('name')}
        />

        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Environment</legend>
          <div className="mt-2 grid grid-cols-2 gap-3">
            {(['live', 'test'] as const).map((env) => (
              <label
                key={env}
                className={`flex cursor-pointer items-start gap-3 rounded-lg p-3 ring-1 ${
                  environment === env ? (env === 'test' ? 'bg-amber-50 ring-amber-400' : 'bg-indigo-50 ring-indigo-500') : 'ring-slate-200 hover:bg-slate-50'
                }`}
              >
                <input
                  type="radio"
                  value={env}
                  {...register('environment')}
                  className="mt-0.5 accent-indigo-600"
                />
                <span>
                  <span className="block text-sm font-medium text-slate-900">{env === 'live' ? 'Live' : 'Test'}</span>
                  <span className="block text-xs text-slate-500">{env === 'live' ? 'Production, real data' : 'Sandbox, no charges'}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>

        <fieldset aria-describedby={fieldError('scopes') ? 'scopes-error' : undefined}>
          <legend className="text-sm font-medium text-slate-800">Scopes</legend>
          <p className="mt-0.5 text-xs text-slate-500">Grant only what this key needs. Defaults are pre-selected.</p>
          <div className="mt-2 divide-y divide-slate-100 rounded-lg ring-1 ring-slate-200">
            {scopeTable.map((s) => (
              <label key={s.scope} className="flex cursor-pointer items-start gap-3 px-3 py-2.5 hover:bg-slate-50">
                <input
                  type="checkbox"
                  value={s.scope}
                  {...register('scopes')}
                  className="mt-0.5 size-4 accent-indigo-600"
                  data-testid={`scope-${s.scope}`}
                />
                <span className="min-w-0">
                  <span className="block font-mono text-sm text-slate-900">{s.scope}</span>
                  <span className="block text-xs text-slate-500">{s.description}</span>
                </span>
              </label>
            ))}
          </div>
          {fieldError('scopes') && (
            <p id="scopes-error" className="mt-1.5 text-xs text-red-600">
              {fieldError('scopes')}
            </p>
          )}
        </fieldset>

        <TextField
          id="key-expires"
          type="datetime-local"
          label="Expires (optional)"
          hint="Leave empty for a key that never expires. Times are in your local time zone."
          min={minExpiry}
          {...register('expiresAt')}
          error={fieldError('expiresAt')}
        />
      </div>
    </Modal>
  );
}
