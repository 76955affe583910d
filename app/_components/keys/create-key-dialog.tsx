'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { DashboardEnvironment } from '@/app/_lib/environment';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { toDateTimeLocal } from '@/app/_lib/format';
import { revealProblem } from '@/app/_lib/reveal';
import type { CreatedKey, ScopeInfo } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, TextField } from '../ui';

type Scope = ScopeInfo['scope'];

interface Problem {
  message: string;
  param: string | null;
}

/** Where each field's problem is shown (see revealProblem). */
const TARGETS: Record<string, string> = { name: 'key-name', scopes: 'scopes-error', expiresAt: 'key-expires' };

/** Checks what the browser can check; the server validates everything again. */
function validate(name: string, scopes: Scope[], expires: string): Problem | null {
  if (!name.trim()) return { message: 'Give the key a name.', param: 'name' };
  if (scopes.length === 0) return { message: 'Select at least one scope.', param: 'scopes' };
  if (expires && !(new Date(expires).getTime() > Date.now())) {
    return { message: 'The expiry must be in the future.', param: 'expiresAt' };
  }
  return null;
}

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
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<DashboardEnvironment>(current);
  const [selected, setSelected] = useState<Scope[]>(() => scopeTable.filter((s) => s.isDefault).map((s) => s.scope));
  const [expires, setExpires] = useState('');
  const [minExpiry] = useState(() => toDateTimeLocal(new Date()));
  const [problem, setProblem] = useState<Problem | null>(null);

  // A field's error goes as soon as the user edits that field.
  const clear = (param: string) => setProblem((p) => (p?.param === param ? null : p));
  const toggle = (scope: Scope, on: boolean) => {
    setSelected((prev) => (on ? [...prev, scope] : prev.filter((s) => s !== scope)));
    clear('scopes');
  };

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const local = validate(name, selected, expires);
    setProblem(local);
    if (local) return revealProblem(TARGETS[local.param ?? ''] ?? null);
    try {
      const key = await create.mutateAsync({
        name: name.trim(),
        environment,
        scopes: scopeTable.map((s) => s.scope).filter((s) => selected.includes(s)),
        ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
      });
      onCreated(key);
    } catch (err) {
      const param = apiErrorOf(err)?.param ?? null;
      setProblem({ message: errorMessage(err), param });
      revealProblem(TARGETS[param ?? ''] ?? null);
    }
  }

  const fieldError = (param: string) => (problem?.param === param ? problem.message : null);

  return (
    <Modal
      title="Create an API key"
      description="The secret is shown once, right after creation."
      onClose={onClose}
      dismissible={!create.isPending}
      onSubmit={onSubmit}
      testId="create-key-dialog"
      size="lg"
      footer={
        <ModalActions label="Create key" onCancel={onClose} pending={create.isPending} testId="create-key-submit" />
      }
    >
      <div className="space-y-6">
        {problem && !['name', 'expiresAt', 'scopes'].includes(problem.param ?? '') && (
          <Alert data-testid="create-key-error">{problem.message}</Alert>
        )}
        <TextField
          id="key-name"
          label="Name"
          placeholder="e.g. Production backend"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            clear('name');
          }}
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
                  name="environment"
                  value={env}
                  checked={environment === env}
                  onChange={() => {
                    setEnvironment(env);
                    clear('environment');
                  }}
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
                  name="scopes"
                  value={s.scope}
                  checked={selected.includes(s.scope)}
                  onChange={(e) => toggle(s.scope, e.target.checked)}
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
          value={expires}
          min={minExpiry}
          onChange={(e) => {
            setExpires(e.target.value);
            clear('expiresAt');
          }}
          error={fieldError('expiresAt')}
        />
      </div>
    </Modal>
  );
}
