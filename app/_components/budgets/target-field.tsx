'use client';

import type { UseFormRegister } from 'react-hook-form';
import type { DashboardEnvironment } from '@/app/_lib/environment';
import type { BudgetTargetType } from '@/app/_lib/types';
import { SelectField } from '../ui';
import { useAgentNames, useKeyNames } from '../usage/use-usage';
import type { BudgetForm } from './budget-form';

// What a new budget counts: the whole environment, one agent's runs, or the runs one key started,
// the agent or key chosen from this environment's own.

const KINDS: { value: BudgetTargetType; label: string; detail: string }[] = [
  { value: 'workspace', label: 'Workspace', detail: 'Every run' },
  { value: 'agent', label: 'Agent', detail: 'One agent’s runs' },
  { value: 'key', label: 'API key', detail: 'Runs a key started' },
];

export function TargetField({
  register,
  type,
  environment,
  error,
  onTypeChange,
}: {
  register: UseFormRegister<BudgetForm>;
  type: BudgetTargetType;
  environment: DashboardEnvironment;
  error: string | null;
  /** Another kind of target was chosen (the agent or key chosen before no longer applies). */
  onTypeChange: () => void;
}) {
  const agents = useAgentNames();
  const keys = useKeyNames();
  const list = type === 'agent' ? agents : keys;
  const options = type === 'workspace' ? [] : [...(list.data?.names.values() ?? [])];
  const noun = type === 'agent' ? 'agent' : 'key';

  return (
    <div className="space-y-3">
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">Counts</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-3">
          {KINDS.map((k) => (
            <label
              key={k.value}
              className={`flex cursor-pointer items-start gap-2.5 rounded-lg p-3 ring-1 ${type === k.value ? 'bg-indigo-50 ring-indigo-500' : 'ring-slate-200 hover:bg-slate-50'}`}
            >
              <input type="radio" value={k.value} {...register('targetType', { onChange: onTypeChange })} className="mt-0.5 accent-indigo-600" data-testid={`budget-target-${k.value}`} />
              <span className="min-w-0">
                <span className="block text-sm font-medium text-slate-900">{k.label}</span>
                <span className="block text-xs text-slate-500">{k.detail}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {type !== 'workspace' && (
        <SelectField
          id="budget-target-id"
          label={type === 'agent' ? 'Agent' : 'API key'}
          {...register('targetId')}
          disabled={list.isPending}
          error={error ?? (list.isError ? `The ${noun}s could not be loaded. Close the dialog and try again.` : null)}
          hint={
            list.data && options.length === 0
              ? `There are no ${environment} ${noun}s yet.`
              : type === 'key'
                ? 'Runs started with this key over the API. Runs from the playground or a schedule belong to no key.'
                : undefined
          }
          data-testid="budget-target-id"
        >
          <option value="">{list.isPending ? `Loading ${noun}s…` : `Choose the ${noun}`}</option>
          {options.map((o) => (
            <option key={o.id} value={o.id}>
              {'prefix' in o ? `${o.name} (${String(o.prefix)}…)` : o.name}
            </option>
          ))}
        </SelectField>
      )}
    </div>
  );
}
